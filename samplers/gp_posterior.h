// The GP's posterior given fixed kernel parameters: one Cholesky factor of
// K + noise I, then for any point the mean k*' K^-1 y and the variance
// k(x, x) - k*' K^-1 k* (of the latent function, without the noise), with
// their gradients in the point's numeric coordinates for L-BFGS-B.
#ifndef HPO_SAMPLERS_GP_POSTERIOR_H_
#define HPO_SAMPLERS_GP_POSTERIOR_H_

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "samplers/matern_kernel.h"

namespace hpo {

struct GpPrediction {
  double mean = 0.0;
  double variance = 0.0;
  // d/dx of each; zero for categorical dimensions. Empty unless asked for.
  Eigen::VectorXd d_mean;
  Eigen::VectorXd d_variance;
};

// Means and variances of many points at once.
struct GpBatchPrediction {
  Eigen::VectorXd mean;
  Eigen::VectorXd variance;
};

class GpPosterior {
 public:
  // Rows of `x` are points in the encoded space, `y` their standardized values.
  // The last `believed` rows are fantasies: values believed, not measured,
  // so they get no observation noise (the kernel's floor of 1e-6 only).
  GpPosterior(MaternKernel kernel, Eigen::MatrixXd x, Eigen::VectorXd y, Eigen::Index believed = 0);

  GpPrediction predict(const Eigen::VectorXd& point, bool with_gradient) const;
  // predict() without gradients for each column of `points`: one kernel
  // matrix and one triangular solve with many right-hand sides, instead of
  // a solve per point.
  GpBatchPrediction predict(const Eigen::MatrixXd& points) const;

  // This posterior conditioned on more points too (fantasies, believed
  // values: noise-free), with the same kernel parameters.
  GpPosterior with(const Eigen::MatrixXd& more_x, const Eigen::VectorXd& more_y) const;

  const MaternKernel& kernel() const { return kernel_; }
  const Eigen::MatrixXd& x() const { return x_; }

 private:
  MaternKernel kernel_;
  Eigen::MatrixXd x_;
  Eigen::VectorXd y_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;  // (K + noise I)^-1 y
  Eigen::Index believed_ = 0;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_GP_POSTERIOR_H_
