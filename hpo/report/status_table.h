// The human-readable table of `hpo status`: one row per trial with its
// state, params, objective, recorded metrics and duration, then the best.
#ifndef HPO_REPORT_STATUS_TABLE_H_
#define HPO_REPORT_STATUS_TABLE_H_

#include <string>

#include "hpo/report/study_view.h"

namespace hpo {

std::string status_table(const StudyView& view);

// The best trial in a few lines: number, objective, metrics, params.
std::string best_summary(const StudyView& view);

// A multi-objective study's Pareto front (the feasible one when it has
// constraints): each trial's objectives and params.
std::string front_summary(const StudyView& view);

// The same for a trial picked otherwise (hpo best --select robust), as
// "<label>: trial N, ...".
std::string trial_summary(const StudyView& view, const TrialRecord& trial,
                          const std::string& label);

}  // namespace hpo

#endif  // HPO_REPORT_STATUS_TABLE_H_
