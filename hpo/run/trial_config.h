// The config file a trainer reads: the trial's sampled values followed by
// the study's fixed values, as one flat JSON object. Exported best configs
// are the same object, so the trainer runs them as they are.
#ifndef HPO_RUN_TRIAL_CONFIG_H_
#define HPO_RUN_TRIAL_CONFIG_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/storage/storage.h"

namespace hpo {

// Sampled values (in the order stored) then fixed ones. A fixed value never
// overrides a sampled one of the same name.
nlohmann::ordered_json trial_config(const std::vector<StoredParam>& params,
                                    const FixedValues& fixed);

// "batch_size=512 lr=0.0003123": for progress lines (4 significant digits).
std::string describe_params(const std::vector<StoredParam>& params);

// A trial's system attribute listing the params whose value that ran lies
// outside the search space (an out-of-memory retry halved batch_size to a
// size that is not a choice); the values that ran are in "hpo:config".
inline constexpr const char* kRanOutsideSpaceAttr = "hpo:ran_outside_space";

// How the config that ran differs from the trial's stored params.
struct RanParams {
  // Every stored param whose value differs from the config's, with the
  // config's value; empty when any of them lies outside its distribution.
  std::vector<StoredParam> inside;
  // The names whose config value lies outside the distribution.
  std::vector<std::string> outside;
};

// What ran, compared with what was sampled. The trial's params should say
// what ran: `inside` are the new values to store. When some value cannot
// be stored (`outside`), none is, and the sampled point is the one that
// did not fit.
RanParams params_that_ran(const std::vector<StoredParam>& stored,
                          const nlohmann::ordered_json& config);

}  // namespace hpo

#endif  // HPO_RUN_TRIAL_CONFIG_H_
