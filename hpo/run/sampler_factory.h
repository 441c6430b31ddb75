// Builds the sampler a study asks for. The one place that knows the sampler
// names, so adding one touches nothing else in the runner.
#ifndef HPO_RUN_SAMPLER_FACTORY_H_
#define HPO_RUN_SAMPLER_FACTORY_H_

#include <memory>
#include <string>
#include <vector>

#include "hpo/config/study_config.h"
#include "samplers/sampler.h"

namespace hpo {

// Throws ConfigError for an unknown name or option, naming the study file.
std::unique_ptr<Sampler> make_sampler(const SamplerConfig& config, uint64_t seed,
                                      Direction direction, const std::string& study_file);

std::vector<std::string> sampler_names();

}  // namespace hpo

#endif  // HPO_RUN_SAMPLER_FACTORY_H_
