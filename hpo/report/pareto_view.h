// A multi-objective study as the reporting commands see it: each
// objective's name, the feasible Pareto front (Optuna's best_trials), and
// how `hpo export` picks one trial of it.
#ifndef HPO_REPORT_PARETO_VIEW_H_
#define HPO_REPORT_PARETO_VIEW_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hpo/report/study_view.h"

namespace hpo {

// Whether the trial is COMPLETE with a value for every objective.
bool has_all_values(const StudyView& view, const TrialRecord& trial);

// Whether the trial meets its constraints (one without any does).
bool trial_feasible(const TrialRecord& trial);

// Optuna's best_trials: the COMPLETE trials no other dominates, among the
// feasible ones when any trial of the study has constraint values (none
// then when none is feasible); by number. In a one-objective study, the
// trials with the best value.
std::vector<const TrialRecord*> pareto_trials(const StudyView& view);

// How `hpo export` picked a trial of the front, for its message.
struct FrontPick {
  const TrialRecord* trial = nullptr;
  std::string why;  // "the knee: ...", "weights 0.7, 0.3: ..."
};

// The front's objectives, each scaled to [0, 1] over the front with 0 the
// best (a loss: maximized objectives turned around); 0 where the front
// does not spread on an objective. An infinite value lies beyond the finite
// ones: the best (-inf loss) is 0, the worst (+inf) 1, and the finite values
// then keep a quarter of the scale from it. One row per trial of `front`.
std::vector<std::vector<double>> normalized_losses(const StudyView& view,
                                                   const std::vector<const TrialRecord*>& front);

// The knee: the trial of the front nearest (Euclidean) the ideal point of
// the normalized objectives, ties to the lower number.
FrontPick pick_knee(const StudyView& view, const std::vector<const TrialRecord*>& front);

// The trial of the front with the smallest weighted sum of normalized
// losses; `weights` has one entry per objective, each >= 0, summing > 0.
FrontPick pick_weighted(const StudyView& view, const std::vector<const TrialRecord*>& front,
                        const std::vector<double>& weights);

// The numbers of the trials pareto_trials() lists.
std::set<int> pareto_numbers(const StudyView& view);

// "maximize val_rank_ic, minimize val_turnover".
std::string goals_text(const StudyView& view);

// "val_rank_ic 0.0412, val_turnover 0.281": a trial's objectives.
std::string objectives_text(const StudyView& view, const TrialRecord& trial);

}  // namespace hpo

#endif  // HPO_REPORT_PARETO_VIEW_H_
