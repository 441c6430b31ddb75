// Box-constrained minimization by L-BFGS-B (LBFGS++, Debian's
// liblbfgspp-dev). The GP sampler uses it twice: for the kernel's
// hyperparameters (log-space, bounded so that a handful of points cannot
// send a lengthscale to infinity) and for the acquisition over the
// continuous dimensions of [0, 1]^d.
#ifndef HPO_SAMPLERS_BOUNDED_MINIMIZE_H_
#define HPO_SAMPLERS_BOUNDED_MINIMIZE_H_

#include <Eigen/Core>
#include <functional>

namespace hpo {

// f(x, grad) returns the value at x and writes the gradient into grad.
using Objective = std::function<double(const Eigen::VectorXd& x, Eigen::VectorXd& grad)>;

// Minimizes f from x within [lower, upper]; x becomes the best point seen,
// always inside the bounds, and its value is returned. LBFGS++ throws when a
// line search fails (a flat or noisy acquisition does that); the best point
// seen so far is then still the answer, so failures are not errors here.
double bounded_minimize(const Objective& f, Eigen::VectorXd& x, const Eigen::VectorXd& lower,
                        const Eigen::VectorXd& upper, int max_iterations);

}  // namespace hpo

#endif  // HPO_SAMPLERS_BOUNDED_MINIMIZE_H_
