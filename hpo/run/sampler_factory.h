// Builds the sampler a study asks for (one of sampler_names()), reading its
// options through samplers/tpe_option_table.h.
#ifndef HPO_RUN_SAMPLER_FACTORY_H_
#define HPO_RUN_SAMPLER_FACTORY_H_

#include <memory>
#include <string>

#include "hpo/config/study_config.h"
#include "samplers/sampler.h"

namespace hpo {

// Throws ConfigError for an unknown name or option, naming the study file.
std::unique_ptr<Sampler> make_sampler(const SamplerConfig& config, uint64_t seed,
                                      Direction direction, const std::string& study_file);

}  // namespace hpo

#endif  // HPO_RUN_SAMPLER_FACTORY_H_
