#include <doctest/doctest.h>

#include "hpo/config/config_error.h"
#include "hpo/run/sampler_factory.h"
#include "samplers/tpe_sampler.h"

namespace hpo {
namespace {

TpeOptions options_of(const nlohmann::json& options) {
  SamplerConfig config;
  config.name = "tpe";
  config.options = options;
  const auto sampler = make_sampler(config, 1, Direction::kMinimize, "studies/s.yaml");
  REQUIRE(sampler->name() == "tpe");
  return dynamic_cast<const TpeSampler&>(*sampler).options();
}

std::string error_of(const nlohmann::json& options) {
  try {
    options_of(options);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("tpe options: defaults, and every key read from the study file") {
  const auto d = options_of(nlohmann::json::object());
  CHECK(!d.multivariate);
  CHECK(d.n_startup_trials == 10);
  CHECK(d.n_ei_candidates == 24);
  CHECK(d.gamma == 0.1);
  CHECK(d.prior_weight == 1.0);
  CHECK(d.consider_magic_clip);
  CHECK(!d.consider_endpoints);
  CHECK(d.constant_liar);
  CHECK(d.ordered_choices);

  const auto o = options_of({{"multivariate", true}, {"group", true}, {"n_startup_trials", 4},
                             {"n_ei_candidates", 48}, {"gamma", 0.25}, {"consider_prior", false},
                             {"prior_weight", 2}, {"consider_magic_clip", false},
                             {"consider_endpoints", true}, {"constant_liar", false},
                             {"ordered_choices", false}});
  CHECK(o.multivariate);
  CHECK(o.group);
  CHECK(o.n_startup_trials == 4);
  CHECK(o.n_ei_candidates == 48);
  CHECK(o.gamma == 0.25);
  CHECK(!o.consider_prior);
  CHECK(o.prior_weight == 2.0);
  CHECK(!o.consider_magic_clip);
  CHECK(o.consider_endpoints);
  CHECK(!o.constant_liar);
  CHECK(!o.ordered_choices);
}

TEST_CASE("tpe options: wrong types and unknown keys name the file and the key") {
  CHECK(error_of({{"multivariate", "yes"}}) ==
        "studies/s.yaml: sampler.multivariate: expected true or false, got \"yes\"");
  CHECK(error_of({{"n_startup_trials", 2.5}}) ==
        "studies/s.yaml: sampler.n_startup_trials: expected an integer of at least 0, got 2.5");
  CHECK(error_of({{"n_ei_candidates", 0}}) ==
        "studies/s.yaml: sampler.n_ei_candidates: expected an integer of at least 1, got 0");
  CHECK(error_of({{"gamma", 1.5}}).find("sampler.gamma: expected a fraction in (0, 1]") != std::string::npos);
  CHECK(error_of({{"prior_weight", -1}}) ==
        "studies/s.yaml: sampler.prior_weight: expected a positive number, got -1");
  const std::string unknown = error_of({{"multivarite", true}});
  CHECK(unknown.find("studies/s.yaml: sampler: unknown tpe option 'multivarite' (did you mean 'multivariate'?)") == 0);
}

}  // namespace
}  // namespace hpo
