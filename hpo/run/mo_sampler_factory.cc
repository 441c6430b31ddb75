#include "hpo/run/mo_sampler_factory.h"

#include "hpo/config/did_you_mean.h"
#include "hpo/run/sampler_factory.h"
#include "hpo/run/sampler_option_reader.h"
#include "samplers/motpe_sampler.h"
#include "samplers/nsga2_sampler.h"
#include "samplers/random_sampler.h"
#include "samplers/sampler_names.h"

namespace hpo {

namespace {

void no_options(const SamplerConfig& config, const std::string& study_file) {
  if (config.options.empty()) return;
  throw ConfigError(config.lines.where(study_file, config.options.begin().key()) +
                    ": sampler: the " + config.name +
                    " sampler takes no options besides 'seed' in a multi-objective study, got '" +
                    config.options.begin().key() + "'");
}

}  // namespace

std::unique_ptr<Sampler> make_multi_objective_sampler(const SamplerConfig& config, uint64_t seed,
                                                      const std::vector<Direction>& directions,
                                                      const std::string& study_file) {
  if (config.name == "random") {
    no_options(config, study_file);
    return std::make_unique<RandomSampler>(
        seed, directions.empty() ? Direction::kMinimize : directions.front());
  }
  if (config.name == "auto") {
    // Multi-objective TPE: it led NSGA-II at 100, 300, 600 and 1,000 trials
    // on every problem of tools/bench/mo_quality (docs/benchmarks.md), so
    // there is nothing yet to switch to.
    no_options(config, study_file);
    return std::make_unique<MotpeSampler>(seed, directions);
  }
  if (config.name == "nsga2") {
    return std::make_unique<Nsga2Sampler>(
        seed, directions,
        table_options<Nsga2Options>(config.options, "nsga2", read_nsga2_options,
                                    nsga2_option_keys(), study_file, config.lines));
  }
  if (config.name == "tpe") {
    if (config.options.empty()) return std::make_unique<MotpeSampler>(seed, directions);
    return std::make_unique<MotpeSampler>(
        seed, directions,
        table_options<TpeOptions>(config.options, "tpe", read_tpe_options, tpe_option_keys(),
                                  study_file, config.lines));
  }
  const std::string hint = config.name == "gp"
                               ? " (the GP sampler handles one objective)"
                               : did_you_mean(config.name, multi_objective_sampler_names());
  throw ConfigError(config.lines.where(study_file, "name") + ": sampler.name: unknown sampler '" +
                    config.name + "' for a study with several objectives" + hint +
                    " (known: " + join_names(multi_objective_sampler_names()) + ")");
}

nlohmann::json multi_objective_sampler_choice(const SamplerConfig& config) {
  if (config.name != "auto")
    return sampler_choice(config, SamplerContext{});  // named: no plan to tell
  return {{"name", "auto"},
          {"uses", "tpe"},
          {"why",
           "several objectives: multi-objective TPE, which led NSGA-II on every problem of "
           "tools/bench/mo_quality from 100 to 1,000 trials"}};
}

}  // namespace hpo
