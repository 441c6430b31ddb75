// The parameters a sampler chooses values for, in a fixed order.
#ifndef HPO_SAMPLERS_SEARCH_SPACE_H_
#define HPO_SAMPLERS_SEARCH_SPACE_H_

#include <optional>
#include <string>
#include <vector>

#include "samplers/distribution.h"

namespace hpo {

// A parameter sampled only when an earlier categorical, `parent`, took one
// of `values` (a search space's `condition: {model: tcn}`). Values are
// external, not choice indices: a GPU profile may drop choices from the
// parent, which renumbers them.
struct Condition {
  std::string parent;
  std::vector<ParamValue> values;
};

struct ParamSpec {
  std::string name;
  Distribution distribution;
  std::optional<Condition> condition = std::nullopt;  // none: always sampled
};

// Order matters: samplers draw parameters in this order, so the same seed
// gives the same values only for the same order. A condition's parent
// comes before its child.
using SearchSpace = std::vector<ParamSpec>;

}  // namespace hpo

#endif  // HPO_SAMPLERS_SEARCH_SPACE_H_
