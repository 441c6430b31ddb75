// Grid kernels (int, stepped and ordered parameters): a truncated normal's
// mass over the grid cell around each value. A grid's kernels share few
// means and bandwidths, so their cell masses are computed per distinct
// (mu, sigma), a group, and per distinct value.
#ifndef HPO_SAMPLERS_KERNELS_DISCRETE_H_
#define HPO_SAMPLERS_KERNELS_DISCRETE_H_

#include <Eigen/Core>
#include <vector>

#include "samplers/kernels/kernel_dim.h"

namespace hpo {

// The kernels by mean, ties by index. `slot` and `n_slots` as in
// GridKernels; with no slots, a plain sort.
std::vector<int> sorted_by_value(const Eigen::ArrayXd& mus, const Eigen::ArrayXi& slot,
                                 int n_slots);

// The log mass of some points' grid cells under each group.
struct GridTable {
  double at(Eigen::Index group, Eigen::Index point) const {
    return log_mass(group, value_of[static_cast<size_t>(point)]);
  }

  Eigen::ArrayXXd log_mass;  // by group and distinct value
  std::vector<int> value_of;  // each point's column in `log_mass`
};

struct GridKernels {
  // Buckets the kernel means `mus` (empty slots for a continuous `space` or
  // a grid too fine to bucket cheaply), for sorted_by_value and group.
  void fit_slots(const Eigen::ArrayXd& mus, const KernelDim& space);
  // Groups the kernels by (mu, sigma), once their bandwidths are known.
  // `before`: an earlier fit on the same grid, whose groups' cell masses
  // (point_log_mass) are taken where a group has the same (mu, sigma).
  void group_kernels(const Eigen::ArrayXd& mus, const Eigen::ArrayXd& sigmas,
                     const KernelDim& space, const GridKernels* before = nullptr);

  // The groups' means, bandwidths and log masses, once all are found.
  void finish_groups(const std::vector<double>& g_mus, const std::vector<double>& g_sigmas,
                     const KernelDim& space, const GridKernels* before);

  GridTable table(const KernelDim& space, const Eigen::ArrayXd& x) const;
  // On one grid dimension the mixture collapses: the log of the weights `w`
  // (one per kernel) pooled per group.
  Eigen::ArrayXd pooled_log_weights(const Eigen::ArrayXd& w) const;

  // Each kernel's mean in half steps from the first point: observations
  // are on the grid (even slots), the prior may sit between two points.
  Eigen::ArrayXi slot;
  int n_slots = 0;
  Eigen::ArrayXi group;  // per kernel
  Eigen::ArrayXd group_mu, group_sigma, group_log_mass;  // per group
  // On a grid of at most kPrecomputedPoints points, each group's log mass of
  // each point's cell (less group_log_mass), by group and point, so that
  // table() computes none for candidates on the points; empty otherwise.
  // Refitting g(x) after one more trial keeps nearly all its groups.
  static constexpr int kPrecomputedPoints = 32;
  Eigen::ArrayXXd point_log_mass;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_KERNELS_DISCRETE_H_
