// The neighbour-gap bandwidths of Optuna and Hyperopt: each kernel as wide
// as the larger gap to its neighbours in value order, the domain's ends
// counting as neighbours of the outermost ones.
#ifndef HPO_SAMPLERS_KERNELS_NEIGHBOUR_GAPS_H_
#define HPO_SAMPLERS_KERNELS_NEIGHBOUR_GAPS_H_

#include <Eigen/Core>
#include <vector>

namespace hpo {

// The gaps of the kernels `mus` on [low, high], `order` holding them sorted
// by value (ties by index). Without `endpoints` the outermost kernels look
// only inwards, as in Optuna.
Eigen::ArrayXd neighbour_gaps(const Eigen::ArrayXd& mus, const std::vector<int>& order, double low,
                              double high, bool endpoints);

// The same gaps on a grid, from the kernels' slots (GridKernels::slot), with
// neither a sort nor a pass over the sorted order: when every kernel of a
// slot has the same value, as observations on a grid do, a kernel inside a
// run of ties has gap 0 and only each run's first and last kernels see
// another value. Bit for bit neighbour_gaps over sorted_by_value's order;
// empty when a slot holds two values (or there are no slots).
Eigen::ArrayXd grid_neighbour_gaps(const Eigen::ArrayXd& mus, const Eigen::ArrayXi& slot,
                                   int n_slots, double low, double high, bool endpoints);

}  // namespace hpo

#endif  // HPO_SAMPLERS_KERNELS_NEIGHBOUR_GAPS_H_
