// Builds the sampler of a study with several objectives: `nsga2`, `tpe`
// (multi-objective TPE), `random` or `auto` (multi_objective_sampler_names()
// in samplers/sampler_names.h).
#ifndef HPO_RUN_MO_SAMPLER_FACTORY_H_
#define HPO_RUN_MO_SAMPLER_FACTORY_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hpo/config/study_config.h"
#include "samplers/sampler.h"

namespace hpo {

// `directions`: one per objective, in the study's order. Throws ConfigError
// for an unknown name or option (one the sampler has only for one
// objective, such as the GP), naming the study file and the key.
std::unique_ptr<Sampler> make_multi_objective_sampler(const SamplerConfig& config, uint64_t seed,
                                                      const std::vector<Direction>& directions,
                                                      const std::string& study_file);

// The sampler a run with several objectives uses and why, as
// sampler_choice() says it for one objective: {"name", "uses", "why"}.
nlohmann::json multi_objective_sampler_choice(const SamplerConfig& config);

}  // namespace hpo

#endif  // HPO_RUN_MO_SAMPLER_FACTORY_H_
