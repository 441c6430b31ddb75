// The search space as a study's trials get it on a profile (space_fit.h),
// for `hpo gpu --study` (JSON) and `hpo doctor` (lines).
#ifndef HPO_CLI_SPACE_VIEW_H_
#define HPO_CLI_SPACE_VIEW_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hpo/gpu/space_fit.h"

namespace hpo {

// {"batch_size": {"type": "categorical", "choices": [4096, 8192], "from": "profile"},
//  "lr": {"type": "float", "low": 5e-06, "high": 0.005, "log": true, "from": "space"},
//  "max_train_samples": {"type": "fixed", "value": 0, "from": "profile"}, ...}
// Keyed by name: sampled parameters and fixed values. "from"
// is "profile" where the profile replaced, bounded or set the value.
nlohmann::json space_json(const FittedSpace& fit);

// "batch_size: categorical [4096, 8192] (from the profile)", one per parameter.
std::vector<std::string> space_lines(const FittedSpace& fit);

}  // namespace hpo

#endif  // HPO_CLI_SPACE_VIEW_H_
