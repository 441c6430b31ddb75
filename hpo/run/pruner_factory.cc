#include "hpo/run/pruner_factory.h"

#include <limits>
#include <optional>

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"
#include "pruners/hyperband_pruner.h"
#include "pruners/percentile_pruner.h"
#include "pruners/successive_halving_pruner.h"

namespace hpo {

namespace {

// Reads pruner options by name, remembering which were used so that the
// rest can be reported as unknown.
class Options {
 public:
  Options(const PrunerConfig& config, std::string file)
      : options_(config.options), lines_(config.lines), file_(std::move(file)) {}

  int integer(const std::string& key, int fallback, int min) {
    known_.push_back(key);
    const auto it = options_.find(key);
    if (it == options_.end()) return fallback;
    if (!it->is_number_integer() || it->get<int64_t>() < min ||
        it->get<int64_t>() > std::numeric_limits<int>::max()) {
      fail(key, "expected an integer >= " + std::to_string(min) + ", got " + it->dump());
    }
    return it->get<int>();
  }

  // An integer, or "auto" (returned as nullopt).
  std::optional<int> integer_or_auto(const std::string& key, std::optional<int> fallback, int min) {
    const auto it = options_.find(key);
    if (it == options_.end() || (it->is_string() && it->get<std::string>() == "auto")) {
      known_.push_back(key);
      return it == options_.end() ? fallback : std::nullopt;
    }
    if (!it->is_number_integer()) {
      fail(key, "expected an integer >= " + std::to_string(min) + " or 'auto', got " + it->dump());
    }
    return integer(key, 0, min);
  }

  double number(const std::string& key, double fallback, double min, double max) {
    known_.push_back(key);
    const auto it = options_.find(key);
    if (it == options_.end()) return fallback;
    if (!it->is_number() || !(it->get<double>() >= min && it->get<double>() <= max)) {
      fail(key, "expected a number in [" + std::to_string(min) + ", " + std::to_string(max) +
                    "], got " + it->dump());
    }
    return it->get<double>();
  }

  void reject_unknown() const {
    for (const auto& [key, value] : options_.items()) {
      if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
        fail(key,
             "unknown option" + did_you_mean(key, known_) +
                 (known_.empty() ? "; this pruner takes none" : "; known: " + join_names(known_)));
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw ConfigError(lines_.where(file_, key) + ": pruner." + key + ": " + what);
  }

  const nlohmann::json& options_;
  const OptionLines& lines_;
  const std::string file_;
  std::vector<std::string> known_;
};

PercentileOptions percentile_options(Options& o, double percentile) {
  PercentileOptions p;
  p.percentile = percentile;
  p.n_startup_trials = o.integer("n_startup_trials", 5, 0);
  p.n_warmup_steps = o.integer("n_warmup_steps", 0, 0);
  p.interval_steps = o.integer("interval_steps", 1, 1);
  p.n_min_trials = o.integer("n_min_trials", 1, 1);
  return p;
}

}  // namespace

std::unique_ptr<Pruner> make_pruner(const PrunerConfig& config, const std::string& study_file) {
  Options o(config, study_file);
  const auto where = [&](const std::string& key) { return config.lines.where(study_file, key); };
  std::unique_ptr<Pruner> pruner;
  if (config.name == "none") {
    pruner = std::make_unique<NopPruner>();
  } else if (config.name == "median") {
    pruner = std::make_unique<PercentilePruner>(percentile_options(o, 50.0), "median");
  } else if (config.name == "percentile") {
    const double percentile = o.number("percentile", 25.0, 0.0, 100.0);
    pruner = std::make_unique<PercentilePruner>(percentile_options(o, percentile));
  } else if (config.name == "successive_halving") {
    SuccessiveHalvingOptions s;
    s.min_resource = o.integer_or_auto("min_resource", std::nullopt, 1);
    s.reduction_factor = o.integer("reduction_factor", 4, 2);
    s.min_early_stopping_rate = o.integer("min_early_stopping_rate", 0, 0);
    s.bootstrap_count = o.integer("bootstrap_count", 0, 0);
    if (s.bootstrap_count > 0 && !s.min_resource) {
      throw ConfigError(where("bootstrap_count") +
                        ": pruner.bootstrap_count: needs an integer min_resource, not auto");
    }
    pruner = std::make_unique<SuccessiveHalvingPruner>(s);
  } else if (config.name == "hyperband") {
    HyperbandOptions h;
    h.min_resource = o.integer("min_resource", 1, 1);
    h.max_resource = o.integer_or_auto("max_resource", std::nullopt, 1);
    h.reduction_factor = o.integer("reduction_factor", 3, 2);
    h.bootstrap_count = o.integer("bootstrap_count", 0, 0);
    if (h.max_resource && *h.max_resource < h.min_resource) {
      throw ConfigError(
          where("max_resource") + ": pruner.max_resource: expected an integer >= min_resource (" +
          std::to_string(h.min_resource) + "), got " + std::to_string(*h.max_resource));
    }
    if (h.bootstrap_count > 0 && !h.max_resource) {
      throw ConfigError(where("bootstrap_count") +
                        ": pruner.bootstrap_count: needs an integer max_resource, not auto");
    }
    pruner = std::make_unique<HyperbandPruner>(h);
  } else {
    throw ConfigError(where("name") + ": pruner.name: unknown pruner '" + config.name +
                      "' (known: " + join_names(pruner_names()) + ")");
  }
  o.reject_unknown();
  return pruner;
}

}  // namespace hpo
