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
  CHECK(d.multivariate);
  CHECK(d.n_startup_trials == 10);
  CHECK(d.n_ei_candidates == 24);
  CHECK(d.split == TpeSplitRule::kLinear);
  CHECK(d.gamma == 0.15);
  CHECK(d.weighting == TpeWeighting::kExpectedImprovement);
  CHECK(d.prior_weight == 1.0);
  CHECK(d.bandwidth == TpeBandwidth::kNeighbours);
  CHECK(!d.min_bandwidth_step);
  CHECK(d.consider_magic_clip);
  CHECK(d.min_bandwidth_factor == 0.03);
  CHECK(d.magic_clip_exponent == 2.0);
  CHECK(!d.consider_endpoints);
  CHECK(d.normalized_kernels);
  CHECK(d.categorical_prior_weight == 0.0);
  CHECK(d.constant_liar);
  CHECK(d.ordered_choices);

  const auto o = options_of({{"multivariate", false},
                             {"group", true},
                             {"n_startup_trials", 4},
                             {"n_ei_candidates", 48},
                             {"split", "sqrt"},
                             {"gamma", 1.5},
                             {"weighting", "uniform"},
                             {"consider_prior", false},
                             {"prior_weight", 2},
                             {"bandwidth", "scott"},
                             {"min_bandwidth_step", true},
                             {"consider_magic_clip", false},
                             {"min_bandwidth_factor", 0.05},
                             {"magic_clip_exponent", 1.5},
                             {"consider_endpoints", true},
                             {"normalized_kernels", false},
                             {"categorical_prior_weight", 0.2},
                             {"constant_liar", false},
                             {"ordered_choices", false}});
  CHECK(!o.multivariate);
  CHECK(o.group);
  CHECK(o.n_startup_trials == 4);
  CHECK(o.n_ei_candidates == 48);
  CHECK(o.split == TpeSplitRule::kSqrt);
  CHECK(o.gamma == 1.5);
  CHECK(o.weighting == TpeWeighting::kUniform);
  CHECK(!o.consider_prior);
  CHECK(o.prior_weight == 2.0);
  CHECK(o.bandwidth == TpeBandwidth::kScott);
  CHECK(o.min_bandwidth_step);
  CHECK(!o.consider_magic_clip);
  CHECK(o.min_bandwidth_factor == 0.05);
  CHECK(o.magic_clip_exponent == 1.5);
  CHECK(o.consider_endpoints);
  CHECK(!o.normalized_kernels);
  CHECK(o.categorical_prior_weight == 0.2);
  CHECK(!o.constant_liar);
  CHECK(!o.ordered_choices);
}

TEST_CASE("tpe options: the optuna preset is Optuna 3.1's TPESampler, and keys adjust it") {
  const auto o = options_of({{"preset", "optuna"}});
  CHECK(!o.multivariate);
  CHECK(o.gamma == 0.1);
  CHECK(o.split == TpeSplitRule::kLinear);
  CHECK(o.weighting == TpeWeighting::kOptuna);
  CHECK(o.bandwidth == TpeBandwidth::kOptuna);
  CHECK(o.min_bandwidth_factor == 0.01);
  CHECK(o.magic_clip_exponent == 1.0);
  CHECK(!o.normalized_kernels);
  CHECK(o.categorical_prior_weight == 0.0);
  CHECK(!o.constant_liar);
  CHECK(!o.ordered_choices);
  CHECK(o.n_ei_candidates == 24);
  CHECK(o.prior_weight == 1.0);
  const auto adjusted = options_of({{"preset", "optuna"}, {"ordered_choices", true}});
  CHECK(adjusted.ordered_choices);
  CHECK(adjusted.weighting == TpeWeighting::kOptuna);
  CHECK(options_of({{"preset", "default"}}).multivariate);
}

TEST_CASE("tpe options: multivariate: false under the default preset gives its univariate values") {
  const auto u = options_of({{"multivariate", false}});
  CHECK(!u.multivariate);
  // Optuna 3.1's univariate algorithm ...
  CHECK(u.gamma == 0.1);
  CHECK(u.weighting == TpeWeighting::kOptuna);
  CHECK(u.bandwidth == TpeBandwidth::kOptuna);
  CHECK(u.min_bandwidth_factor == 0.01);
  CHECK(u.magic_clip_exponent == 1.0);
  CHECK(!u.normalized_kernels);
  // ... with hpo's ordered choices and constant liar.
  CHECK(u.ordered_choices);
  CHECK(u.constant_liar);
  CHECK(options_of({{"preset", "default"}, {"multivariate", false}}).gamma == 0.1);
  // Other keys adjust the univariate values, whatever their order in the file.
  const auto adjusted = options_of({{"gamma", 0.2}, {"multivariate", false}});
  CHECK(adjusted.gamma == 0.2);
  CHECK(adjusted.weighting == TpeWeighting::kOptuna);
  // multivariate: true, or no key, keeps the joint model's values.
  CHECK(options_of({{"multivariate", true}}).gamma == 0.15);
  // The optuna preset stays Optuna's in either mode.
  const auto optuna_joint = options_of({{"preset", "optuna"}, {"multivariate", true}});
  CHECK(optuna_joint.multivariate);
  CHECK(!optuna_joint.ordered_choices);
  CHECK(optuna_joint.gamma == 0.1);
}

TEST_CASE("tpe options: wrong types and unknown keys name the file and the key") {
  CHECK(error_of({{"multivariate", "yes"}}) ==
        "studies/s.yaml: sampler.multivariate: expected true or false, got \"yes\"");
  CHECK(error_of({{"n_startup_trials", 2.5}}) ==
        "studies/s.yaml: sampler.n_startup_trials: expected an integer of at least 0, got 2.5");
  CHECK(error_of({{"n_ei_candidates", 0}}) ==
        "studies/s.yaml: sampler.n_ei_candidates: expected an integer of at least 1, got 0");
  CHECK(error_of({{"gamma", 1.5}}).find("sampler.gamma: expected a fraction in (0, 1]") !=
        std::string::npos);
  CHECK(error_of({{"prior_weight", -1}}) ==
        "studies/s.yaml: sampler.prior_weight: expected a positive number, got -1");
  CHECK(error_of({{"preset", "hyperopt"}}) ==
        "studies/s.yaml: sampler.preset: expected one of default, optuna, got \"hyperopt\"");
  CHECK(error_of({{"weighting", "ei"}}) ==
        "studies/s.yaml: sampler.weighting: expected one of optuna, uniform, expected_improvement, "
        "got \"ei\"");
  CHECK(error_of({{"bandwidth", 3}}) ==
        "studies/s.yaml: sampler.bandwidth: expected one of optuna, neighbours, scott, got 3");
  CHECK(error_of({{"split", "log"}}).find("sampler.split: expected one of linear, sqrt") !=
        std::string::npos);
  CHECK(error_of({{"split", "sqrt"}, {"gamma", 30}})
            .find("sampler.gamma: expected a factor in (0, 25]") != std::string::npos);
  CHECK(error_of({{"min_bandwidth_factor", 0}})
            .find("sampler.min_bandwidth_factor: expected a fraction") != std::string::npos);
  CHECK(error_of({{"magic_clip_exponent", -1}}) ==
        "studies/s.yaml: sampler.magic_clip_exponent: expected a positive number, got -1");
  CHECK(error_of({{"categorical_prior_weight", 1}}) ==
        "studies/s.yaml: sampler.categorical_prior_weight: expected 0 (Optuna's rule) or a share "
        "in (0, 1), got 1");
  CHECK(error_of({{"normalized_kernels", 1}}) ==
        "studies/s.yaml: sampler.normalized_kernels: expected true or false, got 1");
  const std::string unknown = error_of({{"multivarite", true}});
  CHECK(unknown.find("studies/s.yaml: sampler: unknown tpe option 'multivarite' (did you mean "
                     "'multivariate'?)") == 0);
}

}  // namespace
}  // namespace hpo
