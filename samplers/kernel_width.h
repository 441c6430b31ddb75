// Bandwidth rules of the Parzen estimators beyond the neighbour gaps that
// Optuna and Hyperopt use: Scott's rule, and the "magic clip" floor.
#ifndef HPO_SAMPLERS_KERNEL_WIDTH_H_
#define HPO_SAMPLERS_KERNEL_WIDTH_H_

#include <Eigen/Core>

namespace hpo {

// Scott's rule of thumb, robust form: 1.059 * min(IQR / 1.34, std) * n^-0.2
// over the kernels' means (std with n - 1; the quartiles interpolated
// linearly). 0 when the means do not spread (then the clip decides).
double scott_bandwidth(const Eigen::ArrayXd& mus);

// The magic clip's floor: range / min(1 / factor, (n_kernels + 1)^exponent),
// that is range * max(factor, (n_kernels + 1)^-exponent). With factor 0.01
// and exponent 1 it is Optuna's range / min(100, n_kernels + 1), bit for bit.
double magic_min_bandwidth(double range, int n_kernels, double factor, double exponent);

}  // namespace hpo

#endif  // HPO_SAMPLERS_KERNEL_WIDTH_H_
