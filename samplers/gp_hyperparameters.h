// The kernel's parameters by maximum a posteriori: the marginal likelihood
// of the targets (gp_targets.h: mean 0, sd 1) times priors that keep a handful of
// points from overfitting, maximized by L-BFGS-B over the log-parameters
//   theta = [log w_1 .. log w_d, log scale, log noise].
// Priors (densities of the parameter, taken over theta with the Jacobian):
//   lengthscale ~ Gamma(3, 6): mode 1/3, mean 1/2 of the unit cube, so that
//                 a few points do not make the surface flat or spiky;
//   scale       ~ Gamma(2, 2): about the variance of a standardized objective;
//   noise       ~ Gamma(1.1, 20): small (mean 0.055) but not zero, since
//                 trainers are noisy; `deterministic` fixes it at 1e-6.
// Bounds keep lengthscales in [0.01, 10], scale in [0.05, 20] and noise in
// [1e-6, 1], where the Cholesky factor stays well conditioned.
// With `source_dim`, the last dimension is the source indicator of a
// warm-started study (gp_sources.h), and its lengthscale has a prior of
// its own, Gamma(2, 0.5), that expects the stages to agree until the data
// says otherwise.
#ifndef HPO_SAMPLERS_GP_HYPERPARAMETERS_H_
#define HPO_SAMPLERS_GP_HYPERPARAMETERS_H_

#include <Eigen/Core>
#include <vector>

#include "samplers/matern_kernel.h"

namespace hpo {

// theta as above, and back.
Eigen::VectorXd kernel_theta(const KernelParams& params);
KernelParams kernel_params(const Eigen::VectorXd& theta);

// -(log marginal likelihood + log prior) at theta; writes its gradient.
double negative_log_posterior(const Eigen::VectorXd& theta, const Eigen::MatrixXd& x,
                              const Eigen::VectorXd& y, const std::vector<bool>& categorical,
                              Eigen::VectorXd& gradient, bool source_dim = false);

// The MAP parameters for rows `x` with standardized values `y`.
KernelParams fit_kernel(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                        const std::vector<bool>& categorical, bool deterministic,
                        bool source_dim = false);

}  // namespace hpo

#endif  // HPO_SAMPLERS_GP_HYPERPARAMETERS_H_
