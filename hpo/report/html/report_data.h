// What a report page shows, as one JSON document that the page's script
// (hpo/report/web/report.js) draws: the study, its parameters' domains,
// every trial (or, for the heavy charts, a stated sample of them), the
// failures, the best config, the parameter importances and the overfitting
// statistics of the selection (hpo/report/selection.h).
#ifndef HPO_REPORT_HTML_REPORT_DATA_H_
#define HPO_REPORT_HTML_REPORT_DATA_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/report/study_view.h"

namespace hpo {

struct ReportLimits {
  size_t curves = 300;  // learning curves drawn
  size_t parallel = 2000;  // lines in the parallel-coordinates chart
  size_t failures = 200;  // rows in the failures table
  size_t importance_trials = 1000;  // trials the importance forest is fitted to
  size_t shown_params = 10;  // parameters drawn when the user names none
  size_t hypervolume_steps = 200;  // points of the hypervolume history
};

// {"study", "direction", "metric", "counts", "params": [{"name", "type",
//  "log", "low", "high", "choices"}], "trials": [{"n", "state", "value",
//  "value_text" (only for +inf, -inf, nan, whose "value" is null),
//  "p": [per param: the stored value, a choice's index, or null], "m": {metric: v},
//  "start", "end", "host", "slot", "gpu_util", "split" (only when the
//  trainer reported its time split: [["load", s], ["data", s], ...]), "orphan" (only on a RUNNING
//  trial whose hpo process is known dead)}], "curves", "parallel",
//  "failures", "best", "importance", "shown_params" (param_choice.h),
//  "metric_pairs", "pareto" (pareto_data.h; null for one objective), "selection" (as
//  `hpo status --json`'s, plus "text" as `hpo best` prints it), "generated_at",
//  "utc_offset_s"}. Times are seconds since the epoch; `now_s` is when the
//  snapshot was read (running trials' bars end there).
// States are Optuna's, but a FAIL for lack of memory is "OOM".
// `params`: the parameters to draw (hpo report --params; empty: chosen
// by importance); throws ConfigError for one the study does not have.
// `study` (its file, when there is one) gives the trainer command the best
// config's header shows, as `hpo export` does.
nlohmann::json report_data(const StudyView& view, double now_s, const ReportLimits& limits = {},
                           const std::vector<std::string>& params = {},
                           const StudyConfig* study = nullptr);

}  // namespace hpo

#endif  // HPO_REPORT_HTML_REPORT_DATA_H_
