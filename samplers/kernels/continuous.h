// Continuous kernels: truncated normals over [low, high]. As Optuna 3.1
// evaluates them they leave out the 1/sigma of a normal density, unless
// normalized (see ContinuousKernels::fit).
#ifndef HPO_SAMPLERS_KERNELS_CONTINUOUS_H_
#define HPO_SAMPLERS_KERNELS_CONTINUOUS_H_

#include <Eigen/Core>

namespace hpo {

struct ContinuousKernels {
  // The kernels an earlier fit of the same dimension had (the same low, high
  // and normalization).
  struct Before {
    const Eigen::ArrayXd& mus;
    const Eigen::ArrayXd& sigmas;
    const ContinuousKernels& kernels;
  };

  // For kernels with means `mus` and bandwidths `sigmas` on [low, high]. A
  // kernel whose index, mean and bandwidth `before` also has takes its
  // normalizer from there: refitting g(x) after one more trial keeps most
  // kernels where they were, and their normalizers (erfc near the domain's
  // ends) were most of the refit's cost.
  void fit(const Eigen::ArrayXd& mus, const Eigen::ArrayXd& sigmas, double low, double high,
           bool normalized, const Before* before = nullptr);

  // Adds each kernel's log density at x to `acc`; `inv_sigma` holds the
  // bandwidths' inverses, computed once for many points.
  void add_log_terms(const Eigen::ArrayXd& mus, const Eigen::ArrayXd& inv_sigma, double x,
                     Eigen::ArrayXd& acc) const {
    acc += log_norm - 0.5 * ((x - mus) * inv_sigma).square();
  }

  Eigen::ArrayXd log_norm;  // per kernel: -log(sqrt(2 pi) * mass over support)
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_KERNELS_CONTINUOUS_H_
