// The config file a trainer reads: the trial's sampled values followed by
// the study's fixed values, as one flat JSON object. Exported best configs
// are the same object, so the trainer runs them as they are.
#ifndef HPO_RUN_TRIAL_CONFIG_H_
#define HPO_RUN_TRIAL_CONFIG_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hpo/config/study_config.h"
#include "hpo/storage/storage.h"

namespace hpo {

// Sampled values (in the order stored) then fixed ones. A fixed value never
// overrides a sampled one of the same name.
nlohmann::ordered_json trial_config(const std::vector<StoredParam>& params, const FixedValues& fixed);

// "batch_size=512 lr=0.0003123": for progress lines (4 significant digits).
std::string describe_params(const std::vector<StoredParam>& params);

}  // namespace hpo

#endif  // HPO_RUN_TRIAL_CONFIG_H_
