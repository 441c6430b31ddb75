// The trials the GP learns from, as points of the encoded space with
// standardized values to maximize. The rules, per trial state:
//   COMPLETE          its value.
//   PRUNED            the worst COMPLETE value: the pruner stopped it for
//                     looking bad, and its intermediate values come from
//                     earlier epochs, on another scale than final values.
//   FAIL, infeasible  the worst COMPLETE value too (out of memory: the
//                     region should look bad, see trial_view.h).
//   FAIL, other       ignored: a crash says nothing about the objective.
//   RUNNING, WAITING  pending: fantasies at the posterior mean (the kriging
//                     believer), so that parallel workers spread out.
// A trial missing a modelled parameter, or holding a value outside its
// distribution (an older space), is left out. Until a trial is COMPLETE,
// PRUNED and FAIL trials have nothing to be worse than and are left out.
#ifndef HPO_SAMPLERS_GP_HISTORY_H_
#define HPO_SAMPLERS_GP_HISTORY_H_

#include <Eigen/Core>
#include <map>

#include "samplers/gp_space.h"
#include "samplers/trial_view.h"

namespace hpo {

struct GpHistory {
  Eigen::MatrixXd x;  // observed points, one row each
  Eigen::VectorXd y;  // their values as the GP's targets (gp_targets.h), larger is better
  Eigen::VectorXd raw;  // the values themselves, signed so that larger is better
  Eigen::MatrixXd pending;  // points of trials still running
  // The first rows of x and y that are prior observations (warm start:
  // trials numbered below 0, see prior_observations.h).
  Eigen::Index n_prior = 0;
  // Each row's source: 0 for this study's trials, the earlier study's
  // TrialView::source for a prior observation.
  Eigen::VectorXd source;
};

// The history without trial `asking` (the trial being suggested for).
GpHistory gp_history(const std::map<int, TrialView>& trials, const GpSpace& space,
                     Direction direction, int asking);

}  // namespace hpo

#endif  // HPO_SAMPLERS_GP_HISTORY_H_
