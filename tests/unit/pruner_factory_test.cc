#include "hpo/run/pruner_factory.h"

#include <doctest/doctest.h>

#include <cmath>

#include "hpo/config/config_error.h"

namespace hpo {
namespace {

std::string error_of(const std::string& name, const nlohmann::json& options) {
  try {
    make_pruner(PrunerConfig{name, options, {}}, "studies/s.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("each pruner name a study file accepts builds its pruner") {
  for (const auto& name : pruner_names()) {
    CHECK(make_pruner(PrunerConfig{name, nlohmann::json::object(), {}}, "s.yaml")->name() == name);
  }
}

TEST_CASE("pruner options are checked, with the file, the key and a suggestion") {
  CHECK(error_of("median", {{"n_startup_trial", 3}}) ==
        "studies/s.yaml: pruner.n_startup_trial: unknown option (did you mean "
        "'n_startup_trials'?); known: "
        "n_startup_trials, n_warmup_steps, interval_steps, n_min_trials");
  CHECK(error_of("percentile", {{"percentile", 120}})
            .find("pruner.percentile: expected a number in [0") != std::string::npos);
  CHECK(error_of("successive_halving", {{"reduction_factor", 1}}) ==
        "studies/s.yaml: pruner.reduction_factor: expected an integer >= 2, got 1");
  CHECK(error_of("hyperband", {{"max_resource", "lots"}}).find("or 'auto'") != std::string::npos);
  CHECK(error_of("hyperband", {{"bootstrap_count", 2}}).find("needs an integer max_resource") !=
        std::string::npos);
  CHECK(error_of("none", {{"x", 1}}).find("this pruner takes none") != std::string::npos);
  CHECK(error_of("hyperband", {{"max_resource", "auto"}, {"min_resource", 2}}).empty());
  CHECK(error_of("hyperband", {{"max_resource", 2}, {"min_resource", 10}}) ==
        "studies/s.yaml: pruner.max_resource: expected an integer >= min_resource (10), got 2");
  // NaN is no number in [0, 100].
  CHECK(error_of("percentile", {{"percentile", std::nan("")}})
            .find("pruner.percentile: expected a number in [0") != std::string::npos);
}

}  // namespace
}  // namespace hpo
