// The samplers a study file can name: the one list of them, which the
// study file's check, the CLI's --sampler and the sampler factories share.
#ifndef HPO_SAMPLERS_SAMPLER_NAMES_H_
#define HPO_SAMPLERS_SAMPLER_NAMES_H_

#include <string>
#include <vector>

namespace hpo {

// For a study with one objective.
const std::vector<std::string>& sampler_names();

// For a study with several objectives: `tpe` there is multi-objective TPE,
// and so is `auto` for now (hpo/run/mo_sampler_factory.cc says why).
const std::vector<std::string>& multi_objective_sampler_names();

}  // namespace hpo

#endif  // HPO_SAMPLERS_SAMPLER_NAMES_H_
