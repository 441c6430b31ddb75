// Pareto dominance among trials with several objectives, as NSGA-II and
// multi-objective TPE rank them. Every objective is a loss here (smaller is
// better): to_losses() turns a trial's values around where the study
// maximizes.
#ifndef HPO_SAMPLERS_PARETO_H_
#define HPO_SAMPLERS_PARETO_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "samplers/trial_view.h"

namespace hpo {

using Losses = std::vector<std::vector<double>>;  // one loss vector per point

// `values` as losses: negated where the direction is to maximize.
std::vector<double> to_losses(const std::vector<double>& values,
                              const std::vector<Direction>& directions);

// A COMPLETE trial's losses (values in study order, to_losses); nothing for
// other trials and for values that are missing, too few or not numbers. A
// one-objective trial's `value` stands for its values.
std::optional<std::vector<double>> trial_losses(const TrialView& trial,
                                                const std::vector<Direction>& directions);

// Whether `a` is no worse than `b` in every loss and better in one.
bool dominates(const std::vector<double>& a, const std::vector<double>& b);

// The total violation of constraints (Optuna's convention: feasible when
// every value <= 0): the sum of the positive values; NaN counts as
// infinitely violated.
double violation(const std::vector<double>& constraints);

// Optuna's constrained domination: a feasible point beats an infeasible one,
// two feasible ones compare by dominates(), two infeasible ones by total
// violation (the smaller wins). Empty constraints mean feasible.
bool constrained_dominates(const std::vector<double>& a, const std::vector<double>& a_constraints,
                           const std::vector<double>& b, const std::vector<double>& b_constraints);

// Each point's non-domination rank (0: the Pareto front, 1: the front of
// the rest, ...) under constrained_dominates(). `constraints` is empty or
// one vector per point. Points after the first `stop_after` ranked ones
// (counting whole fronts) get rank -1, so a caller that needs only the best
// few pays only for those.
std::vector<int> nondominated_ranks(const Losses& losses, const Losses& constraints = {},
                                    size_t stop_after = static_cast<size_t>(-1));

// The same on `flat`, n points of m losses each one after another, with
// each point's violation() (0: feasible): no vector per point to allocate.
std::vector<int> nondominated_ranks(const std::vector<double>& flat, size_t m,
                                    const std::vector<double>& violations,
                                    size_t stop_after = static_cast<size_t>(-1));

// The indices of the non-dominated points, ascending.
std::vector<size_t> pareto_front(const Losses& losses);

// NSGA-II's crowding distance of each point of one front, as Optuna 5.0
// defines it: the sum over the losses of the gap between its two neighbours
// (infinite beyond the ends), over that loss's range of finite values. A
// loss equal for every point adds nothing; equal infinities are no gap.
std::vector<double> crowding_distance(const Losses& front);

}  // namespace hpo

#endif  // HPO_SAMPLERS_PARETO_H_
