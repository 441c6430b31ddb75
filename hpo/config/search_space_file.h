// Search-space files (search_spaces/*.yaml): the parameters a study samples
// and the values it fixes.
//
//   params:
//     batch_size: {type: categorical, choices: [256, 512, 1024]}
//     lr:         {type: float, low: 5.0e-6, high: 5.0e-3, log: true}
//     dropout:    {type: float, low: 0.0, high: 0.3, step: 0.05}
//     layers:     {type: int, low: 2, high: 6}
//     model:      {type: fixed, value: tcn}
//     epochs:     5                       # a bare scalar is fixed too
//
// Parameters keep file order. Bounds: a float needs low < high, an int
// low <= high (low == high is a constant, allowed as Optuna allows it). `log`
// needs low > 0 and excludes `step`; a step must be > 0 and divide
// high - low. Every error names the file, the line and the key.
#ifndef HPO_CONFIG_SEARCH_SPACE_FILE_H_
#define HPO_CONFIG_SEARCH_SPACE_FILE_H_

#include <string>

#include "hpo/config/study_config.h"

namespace hpo {

// Reads and validates the file at `path`; throws ConfigError.
SearchSpaceConfig load_search_space(const std::string& path);

// The same for text already in memory; `path_for_messages` names it in
// errors and becomes SearchSpaceConfig::path.
SearchSpaceConfig parse_search_space(const std::string& yaml_text,
                                     const std::string& path_for_messages);

}  // namespace hpo

#endif  // HPO_CONFIG_SEARCH_SPACE_FILE_H_
