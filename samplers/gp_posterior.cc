#include "samplers/gp_posterior.h"

#include <algorithm>

namespace hpo {

namespace {

// Smallest posterior variance reported: a point on top of an observation of
// a noise-free GP has variance 0 up to rounding, and log EI needs sd > 0.
constexpr double kMinVariance = 1e-12;

}  // namespace

GpPosterior::GpPosterior(MaternKernel kernel, Eigen::MatrixXd x, Eigen::VectorXd y)
    : kernel_(std::move(kernel)), x_(std::move(x)), y_(std::move(y)) {
  Eigen::MatrixXd k = kernel_.matrix(x_);
  k.diagonal().array() += kernel_.params().noise;
  llt_.compute(k);
  alpha_ = llt_.solve(y_);
}

GpPrediction GpPosterior::predict(const Eigen::VectorXd& point, bool with_gradient) const {
  const Eigen::VectorXd k = kernel_.column(x_, point);
  // k*' K^-1 k* = |L^-1 k*|^2: one triangular solve; the gradient needs the
  // second, K^-1 k* = L^-T (L^-1 k*), which the raw candidates skip.
  const Eigen::VectorXd v = llt_.matrixL().solve(k);
  GpPrediction out;
  out.mean = k.dot(alpha_);
  out.variance = std::max(kMinVariance, kernel_.params().scale - v.squaredNorm());
  if (!with_gradient) return out;
  const Eigen::VectorXd beta = llt_.matrixU().solve(v);
  const auto& w = kernel_.params().inverse_sq_lengthscale;
  const auto& categorical = kernel_.categorical();
  const Eigen::Index dims = point.size();
  out.d_mean = Eigen::VectorXd::Zero(dims);
  out.d_variance = Eigen::VectorXd::Zero(dims);
  for (Eigen::Index i = 0; i < x_.rows(); ++i) {
    // dk_i/dx_d = scale * slope(r^2) * w_d * 2 (x_d - x_id)
    const double factor =
        2.0 * kernel_.params().scale * matern52_slope(kernel_.row_r_sq(x_, i, point));
    for (Eigen::Index d = 0; d < dims; ++d) {
      if (categorical[static_cast<size_t>(d)]) continue;
      const double dk = factor * w[d] * (point[d] - x_(i, d));
      out.d_mean[d] += dk * alpha_[i];
      out.d_variance[d] -= 2.0 * dk * beta[i];
    }
  }
  return out;
}

GpBatchPrediction GpPosterior::predict(const Eigen::MatrixXd& points) const {
  const Eigen::MatrixXd k = kernel_.cross(x_, points);
  const Eigen::MatrixXd v = llt_.matrixL().solve(k);
  GpBatchPrediction out;
  out.mean = k.transpose() * alpha_;
  out.variance = (kernel_.params().scale - v.colwise().squaredNorm().array())
                     .max(kMinVariance)
                     .matrix()
                     .transpose();
  return out;
}

GpPosterior GpPosterior::with(const Eigen::MatrixXd& more_x, const Eigen::VectorXd& more_y) const {
  Eigen::MatrixXd x(x_.rows() + more_x.rows(), x_.cols());
  x << x_, more_x;
  Eigen::VectorXd y(y_.size() + more_y.size());
  y << y_, more_y;
  return GpPosterior(kernel_, std::move(x), std::move(y));
}

}  // namespace hpo
