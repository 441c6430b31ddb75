// A Parzen estimator: the weighted kernel mixture TPE fits to the good
// trials ("below", l(x)) and to the rest ("above", g(x)). One kernel per
// observation plus a broad prior kernel; every kernel is a product over the
// dimensions of a truncated normal (continuous), a truncated normal's mass
// over a grid cell (int, stepped and ordered parameters) or a categorical.
//
// Everything here is in "model space": log-values for log parameters,
// ranks for ordered choices, indices for categoricals.
#ifndef HPO_SAMPLERS_PARZEN_ESTIMATOR_H_
#define HPO_SAMPLERS_PARZEN_ESTIMATOR_H_

#include <Eigen/Core>
#include <random>
#include <vector>

#include "samplers/kernels/kernel_dim.h"
#include "samplers/tpe_options.h"
#include "samplers/tpe_weights.h"

namespace hpo {

// The defaults are Optuna 3.1's.
struct ParzenOptions {
  bool consider_prior = true;
  double prior_weight = 1.0;
  // The prior kernel's weight in the mixture, when it is not prior_weight
  // (negative: prior_weight). The categorical smoothing keeps prior_weight.
  double prior_kernel_weight = -1.0;
  bool consider_magic_clip = true;
  double min_bandwidth_factor = 0.01;  // the magic clip, see magic_min_bandwidth
  double magic_clip_exponent = 1.0;
  bool consider_endpoints = false;
  bool multivariate = false;  // with kOptuna: BOHB's bandwidths instead of neighbour gaps
  TpeBandwidth bandwidth = TpeBandwidth::kOptuna;
  bool normalized = false;  // continuous kernels as densities, not weighted by width
  double categorical_prior_weight = 0.0;  // see TpeOptions
  bool min_bandwidth_step = false;  // see TpeOptions
};

class ParzenEstimator {
 public:
  // `obs` holds one row per observation and one column per dimension;
  // `weights` one nonnegative weight per row. `order`, where given, holds
  // per dimension the rows sorted by value, ties by row (TpeHistory keeps
  // them so); an empty or missing entry: the estimator sorts that column
  // itself, for its bandwidths. `before`, when given, is an earlier
  // estimator whose work may be reused where its kernels are the same ones
  // (ParzenMemo passes the one it replaces); the result does not depend on it.
  ParzenEstimator(std::vector<KernelDim> dims, const Eigen::ArrayXXd& obs,
                  const Eigen::ArrayXd& weights, const ParzenOptions& options,
                  const std::vector<std::vector<int>>& order = {},
                  const ParzenEstimator* before = nullptr);
  ~ParzenEstimator();

  // `n` draws, one per row. Grid values are not snapped to the grid.
  Eigen::ArrayXXd sample(std::mt19937_64& rng, int n) const;

  // The log density of each row of `x` (log mass on grids and choices);
  // grid values must lie on their grid. Unless `normalized`, continuous
  // kernels are weighted by their bandwidth, as in Optuna 3.1 (see
  // ContinuousKernels::fit), and over continuous dimensions this is a score
  // proportional to no density.
  Eigen::ArrayXd log_pdf(const Eigen::ArrayXXd& x) const;

  int n_kernels() const { return static_cast<int>(weights_.size()); }
  const Eigen::ArrayXd& mus(int dim) const;
  const Eigen::ArrayXd& sigmas(int dim) const;

 private:
  // One dimension's kernels: means and bandwidths when numeric, and its
  // family's (samplers/kernels/).
  struct Dim;
  // What log_pdf needs of one dimension for a given set of points.
  struct Prepared;

  void fit_numeric(Dim& dim, const Eigen::Ref<const Eigen::ArrayXd>& obs,
                   const std::vector<int>& order, const Dim* before) const;
  // The same dimension of `before` (the same domain and grid), whose kernels'
  // normalizers and grid masses can be reused.
  const Dim* same_dim(const ParzenEstimator* before, size_t j) const;
  void find_classes();
  double discrete_term(const Prepared& p, double x, Eigen::Index point, Eigen::Index kernel) const;
  Eigen::ArrayXd bandwidths(const Dim& dim, const Eigen::ArrayXd& mus,  // mus: dim.mu
                            const std::vector<int>& order) const;
  Prepared prepare(const Dim& dim, const Eigen::ArrayXd& x) const;
  void add_log_pdf(const Prepared& p, double x, Eigen::Index point, Eigen::ArrayXd& acc) const;
  Eigen::ArrayXd discrete_log_pdf(const Dim& dim, const Eigen::ArrayXd& x) const;
  double sample_dim(const Dim& dim, int kernel, std::mt19937_64& rng) const;

  std::vector<Dim> dims_;
  // Kernels that agree on every discrete dimension (the same grid group, the
  // same categorical choice) have the same log density over those at any
  // point: with two or more such dimensions, log_pdf sums them once per
  // class and point instead of once per kernel. Empty otherwise.
  std::vector<size_t> discrete_;  // the discrete dimensions
  Eigen::ArrayXi class_;  // per kernel
  std::vector<Eigen::Index> class_kernel_;  // per class, one kernel of it
  ParzenOptions options_;
  int n_obs_ = 0;
  bool has_prior_ = true;
  Eigen::ArrayXd weights_;  // per kernel, normalized; the prior last
  Eigen::ArrayXd log_weights_;  // their logs; empty for one discrete dimension
  Eigen::ArrayXd cumulative_;  // running sum of the weights, for drawing kernels
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_PARZEN_ESTIMATOR_H_
