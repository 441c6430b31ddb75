// Which parameters of a conditional search space a trial holds. A child is
// active when its parent is active and took one of the condition's values;
// a trial stores no value for an inactive parameter, as Optuna's
// define-by-run trials hold only what they suggested.
#ifndef HPO_SAMPLERS_CONDITIONS_H_
#define HPO_SAMPLERS_CONDITIONS_H_

#include <map>
#include <string>

#include "samplers/search_space.h"

namespace hpo {

// Whether `param`'s condition holds for `values` (internal, by name): true
// without a condition, false when the parent has no value.
bool condition_holds(const SearchSpace& space, const ParamSpec& param,
                     const std::map<std::string, double>& values);

// `values` without the parameters whose condition fails. Samplers draw
// every parameter, so that one seed gives the same values whatever the
// parents chose, and then drop what does not apply.
std::map<std::string, double> drop_inactive(const SearchSpace& space,
                                            std::map<std::string, double> values);

// Whether any parameter of `space` has a condition.
bool is_conditional(const SearchSpace& space);

}  // namespace hpo

#endif  // HPO_SAMPLERS_CONDITIONS_H_
