#include "hpo/run/sampler_factory.h"

#include "hpo/config/config_error.h"
#include "samplers/random_sampler.h"

namespace hpo {

std::vector<std::string> sampler_names() { return {"random", "tpe"}; }

std::unique_ptr<Sampler> make_sampler(const SamplerConfig& config, uint64_t seed,
                                      Direction direction, const std::string& study_file) {
  if (config.name == "random") {
    if (!config.options.empty()) {
      throw ConfigError(study_file + ": sampler: the random sampler takes no options besides 'seed', got '" +
                        config.options.begin().key() + "'");
    }
    return std::make_unique<RandomSampler>(seed, direction);
  }
  if (config.name == "tpe") {
    throw ConfigError(study_file +
                      ": sampler.name: 'tpe' is not available in this build yet; use 'random' "
                      "(or --sampler random)");
  }
  std::string known;
  for (const auto& n : sampler_names()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError(study_file + ": sampler.name: unknown sampler '" + config.name + "' (known: " + known + ")");
}

}  // namespace hpo
