// The samplers a study with several objectives can name: `tpe` there is
// multi-objective TPE, and so is `auto` for now (hpo/run/mo_sampler_factory.cc
// says why). Defined in sampler.cc, beside sampler_names().
#ifndef HPO_SAMPLERS_MO_SAMPLER_NAMES_H_
#define HPO_SAMPLERS_MO_SAMPLER_NAMES_H_

#include <string>
#include <vector>

namespace hpo {

const std::vector<std::string>& multi_objective_sampler_names();

}  // namespace hpo

#endif  // HPO_SAMPLERS_MO_SAMPLER_NAMES_H_
