// Which parameters the parallel coordinates and slice plots draw (as
// Optuna's plots take `params=`): thirty axes side by side are unreadable,
// so a study with many parameters shows its most important ones unless the
// user names others with `hpo report --params`. The page says what it hid.
#ifndef HPO_REPORT_HTML_PARAM_CHOICE_H_
#define HPO_REPORT_HTML_PARAM_CHOICE_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hpo {

// {"names": the parameters to draw, in the study's order, "by": "all" |
// "importance" (the `limit` most important of section 5's ranking) |
// "order" (the first `limit`, when nothing was ranked) | "--params"}.
// `study_params`: every parameter, in the study's order; `importance`:
// importance_json()'s result; `requested`: --params (empty: choose).
// Throws ConfigError naming --params for a name the study does not have.
nlohmann::json choose_params(const std::vector<std::string>& study_params,
                             const nlohmann::json& importance,
                             const std::vector<std::string>& requested, size_t limit);

}  // namespace hpo

#endif  // HPO_REPORT_HTML_PARAM_CHOICE_H_
