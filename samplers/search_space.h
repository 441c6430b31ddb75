// The parameters a sampler chooses values for, in a fixed order.
#ifndef HPO_SAMPLERS_SEARCH_SPACE_H_
#define HPO_SAMPLERS_SEARCH_SPACE_H_

#include <string>
#include <vector>

#include "samplers/distribution.h"

namespace hpo {

struct ParamSpec {
  std::string name;
  Distribution distribution;
};

// Order matters: samplers draw parameters in this order, so the same seed
// gives the same values only for the same order.
using SearchSpace = std::vector<ParamSpec>;

}  // namespace hpo

#endif  // HPO_SAMPLERS_SEARCH_SPACE_H_
