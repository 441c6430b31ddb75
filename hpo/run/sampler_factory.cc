#include "hpo/run/sampler_factory.h"

#include "hpo/config/did_you_mean.h"
#include "hpo/run/sampler_option_reader.h"
#include "samplers/auto_sampler.h"
#include "samplers/gp_sampler.h"
#include "samplers/random_sampler.h"
#include "samplers/sampler_names.h"
#include "samplers/tpe_option_table.h"
#include "samplers/tpe_sampler.h"

namespace hpo {

namespace {

// The startup count from the run's budget, where the study file sets none
// (`preset: optuna` keeps Optuna 3.1's 10).
template <typename Options>
Options with_startup(Options options, const nlohmann::json& config_options,
                     const SamplerContext& context) {
  const auto preset = config_options.find("preset");
  const bool optuna = preset != config_options.end() && *preset == "optuna";
  if (!config_options.contains("n_startup_trials") && !optuna) {
    options.n_startup_trials = auto_startup_trials(context.planned_trials, context.space);
  }
  return options;
}

AutoThresholds auto_thresholds(const SamplerContext& context) {
  AutoThresholds thresholds;
  thresholds.constrained = context.constrained;
  return thresholds;
}

}  // namespace

nlohmann::json sampler_choice(const SamplerConfig& config, const SamplerContext& context) {
  if (config.name != "auto")
    return {{"name", config.name},
            {"uses", config.name},
            {"why", "named by the study file or --sampler"}};
  const AutoPlan plan = auto_plan(context.space, auto_thresholds(context));
  return {{"name", "auto"}, {"uses", plan.summary()}, {"why", plan.why}};
}

std::unique_ptr<Sampler> make_sampler(const SamplerConfig& config, uint64_t seed,
                                      Direction direction, const std::string& study_file,
                                      const SamplerContext& context) {
  if (config.name == "random") {
    if (!config.options.empty()) {
      const std::string key = config.options.begin().key();
      throw ConfigError(config.lines.where(study_file, key) +
                        ": sampler: the random sampler takes no options besides 'seed', got '" +
                        key + "'");
    }
    return std::make_unique<RandomSampler>(seed, direction);
  }
  if (config.name == "tpe") {
    return std::make_unique<TpeSampler>(
        seed, direction,
        with_startup(table_options<TpeOptions>(config.options, "tpe", read_tpe_options,
                                               tpe_option_keys(), study_file, config.lines),
                     config.options, context));
  }
  if (config.name == "gp") {
    if (context.constrained) {
      throw ConfigError(config.lines.where(study_file, "name") +
                        ": sampler gp does not model constraints, and would search as if the "
                        "study had none; use tpe or auto (TPE ranks a trial that breaks them "
                        "after every feasible one), or remove `constraints:`");
    }
    return std::make_unique<GpSampler>(
        seed, direction,
        with_startup(table_options<GpOptions>(config.options, "gp", read_gp_options,
                                              gp_option_keys(), study_file, config.lines),
                     config.options, context));
  }
  if (config.name == "auto") {
    // Both samplers with their defaults and the same startup, which the
    // study file may set: n_startup_trials and startup, the keys they share.
    nlohmann::json shared = nlohmann::json::object();
    for (const auto& item : config.options.items()) {
      if (item.key() != "n_startup_trials" && item.key() != "startup") {
        throw ConfigError(config.lines.where(study_file, item.key()) +
                          ": sampler: unknown auto option '" + item.key() + "'" +
                          did_you_mean(item.key(), {"n_startup_trials", "startup"}) +
                          " (known: name, seed, n_startup_trials, startup)");
      }
      shared[item.key()] = item.value();
    }
    return std::make_unique<AutoSampler>(
        seed, direction,
        with_startup(table_options<TpeOptions>(shared, "auto", read_tpe_options, tpe_option_keys(),
                                               study_file, config.lines),
                     shared, context),
        with_startup(table_options<GpOptions>(shared, "auto", read_gp_options, gp_option_keys(),
                                              study_file, config.lines),
                     shared, context),
        auto_thresholds(context));
  }
  throw ConfigError(config.lines.where(study_file, "name") + ": sampler.name: unknown sampler '" +
                    config.name + "' (known: " + join_names(sampler_names()) + ")");
}

}  // namespace hpo
