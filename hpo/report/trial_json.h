// Trials as JSON and CSV, for scripts and analysis (`hpo status --json`,
// `hpo export --trials`).
#ifndef HPO_REPORT_TRIAL_JSON_H_
#define HPO_REPORT_TRIAL_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "hpo/report/study_view.h"

namespace hpo {

// {"number", "state", "params": {...}, "value", "metrics": {...},
//  "intermediate": {"0": v, ...}, "duration_s", "fail_reason", ...,
//  "host", "slot"} (host and slot null for a trial hpo did not run)
nlohmann::ordered_json trial_json(const TrialRecord& trial);

// {"study", "direction", "metric", "counts", "hosts", "best", "trials": [...]};
// "hosts": [{"host", "counts", "mean_duration_s"}, ...], see host_summary.h.
nlohmann::ordered_json study_json(const StudyView& view);

// One row per trial: number, state, value, every param, every metric,
// duration_s, fail_reason. Fields are quoted as RFC 4180 asks. Column names
// are unique: the value column is named after the objective's metric, params
// are param_NAME, and a metric whose name is taken (the objective's own
// metric, or one called like another column) becomes metric_NAME (or
// metric_NAME_2, ...).
std::string trials_csv(const StudyView& view);

}  // namespace hpo

#endif  // HPO_REPORT_TRIAL_JSON_H_
