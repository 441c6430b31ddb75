// The hypervolume of a set of loss vectors: the volume of the region that
// they dominate and that dominates the reference point. Exact in every
// dimension: a sweep in 2-D, slabs of 2-D staircases in 3-D, and slicing
// along the last loss (each slice one dimension less) beyond.
#ifndef HPO_SAMPLERS_HYPERVOLUME_H_
#define HPO_SAMPLERS_HYPERVOLUME_H_

#include <cstddef>
#include <vector>

#include "samplers/pareto.h"

namespace hpo {

// Points that do not strictly dominate the reference add nothing.
double hypervolume(const Losses& losses, const std::vector<double>& reference);

// Each point's exclusive share: the hypervolume lost without it.
std::vector<double> hypervolume_contributions(const Losses& losses,
                                              const std::vector<double>& reference);

// `k` of `losses`' indices chosen greedily, each the one that adds the most
// hypervolume to those chosen before (a subset-selection heuristic, as
// multi-objective TPE breaks its last front). All of them when k >= size.
std::vector<size_t> select_by_hypervolume(const Losses& losses, size_t k,
                                          const std::vector<double>& reference);

// A reference point just beyond the worst of `losses` in every loss (by 10%
// of its magnitude, at least 1e-12 where it is 0), as Optuna sets one.
std::vector<double> nadir_reference(const Losses& losses);

}  // namespace hpo

#endif  // HPO_SAMPLERS_HYPERVOLUME_H_
