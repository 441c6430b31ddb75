#include "hpo/run/sampler_factory.h"

#include "hpo/config/did_you_mean.h"
#include "hpo/run/sampler_option_reader.h"
#include "samplers/gp_sampler.h"
#include "samplers/random_sampler.h"
#include "samplers/tpe_option_table.h"
#include "samplers/tpe_sampler.h"

namespace hpo {

std::unique_ptr<Sampler> make_sampler(const SamplerConfig& config, uint64_t seed,
                                      Direction direction, const std::string& study_file) {
  if (config.name == "random") {
    if (!config.options.empty()) {
      throw ConfigError(study_file +
                        ": sampler: the random sampler takes no options besides 'seed', got '" +
                        config.options.begin().key() + "'");
    }
    return std::make_unique<RandomSampler>(seed, direction);
  }
  if (config.name == "tpe") {
    return std::make_unique<TpeSampler>(
        seed, direction,
        table_options<TpeOptions>(config.options, "tpe", read_tpe_options, tpe_option_keys(),
                                  study_file));
  }
  if (config.name == "gp") {
    return std::make_unique<GpSampler>(
        seed, direction,
        table_options<GpOptions>(config.options, "gp", read_gp_options, gp_option_keys(),
                                 study_file));
  }
  throw ConfigError(study_file + ": sampler.name: unknown sampler '" + config.name +
                    "' (known: " + join_names(sampler_names()) + ")");
}

}  // namespace hpo
