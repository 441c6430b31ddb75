// Section 11's numbers for a study with several objectives: each COMPLETE
// trial's objectives, whether it is feasible and on the Pareto front, and
// the hypervolume of the feasible front after each trial.
#ifndef HPO_REPORT_HTML_PARETO_DATA_H_
#define HPO_REPORT_HTML_PARETO_DATA_H_

#include <cstddef>
#include <nlohmann/json.hpp>

#include "hpo/report/study_view.h"

namespace hpo {

// {"metrics", "directions", "points": [{"n", "values", "feasible", "front"}],
//  "front_size", "not_drawn": {"trials", "front"},
//  "hypervolume": {"reference": [...], "n": [...], "hv": [...]}}; null for a
// one-objective study. A trial with an infinite value is no point (counted
// in not_drawn, and in its "front" when on the front) and no part of the
// hypervolume. The reference point is just beyond the worst
// feasible value of each objective (as Optuna sets one); the hypervolume is
// sampled at `max_steps` trials at most, evenly spaced, and the last.
nlohmann::json pareto_json(const StudyView& view, size_t max_steps);

}  // namespace hpo

#endif  // HPO_REPORT_HTML_PARETO_DATA_H_
