#include "samplers/gp_posterior.h"

#include <algorithm>

#include "samplers/numbers.h"

namespace hpo {

namespace {

// Smallest posterior variance reported: a point on top of an observation of
// a noise-free GP has variance 0 up to rounding, and log EI needs sd > 0.
constexpr double kMinVariance = 1e-12;
// The noise variance of a fantasy's value (a floor for the Cholesky factor).
constexpr double kBelievedNoise = 1e-6;

}  // namespace

GpPosterior::GpPosterior(MaternKernel kernel, Eigen::MatrixXd x, Eigen::VectorXd y,
                         Eigen::Index believed)
    : kernel_(std::move(kernel)), x_(std::move(x)), y_(std::move(y)), believed_(believed) {
  Eigen::MatrixXd k = kernel_.matrix(x_);
  k.diagonal().array() += kernel_.params().noise;
  // A believed value is the latent mean itself, not a noisy reading of it.
  k.diagonal().tail(believed).array() += kBelievedNoise - kernel_.params().noise;
  llt_.compute(k);
  alpha_ = llt_.solve(y_);
}

GpPrediction GpPosterior::predict(const Eigen::VectorXd& point, bool with_gradient) const {
  // r^2 to each observation, then one vectorized exp for both the kernel
  // column and its slope in r^2.
  const Eigen::ArrayXd r_sq = kernel_.cross_r_sq(x_, point);
  const Eigen::ArrayXd r = r_sq.sqrt();
  const Eigen::ArrayXd e = (-kSqrt5 * r).exp();
  const double scale = kernel_.params().scale;
  const Eigen::VectorXd k = (scale * (1.0 + kSqrt5 * r + 5.0 / 3.0 * r_sq) * e).matrix();
  // k*' K^-1 k* = |L^-1 k*|^2: one triangular solve; the gradient needs the
  // second, K^-1 k* = L^-T (L^-1 k*), which the raw candidates skip.
  const Eigen::VectorXd v = llt_.matrixL().solve(k);
  GpPrediction out;
  out.mean = k.dot(alpha_);
  out.variance = std::max(kMinVariance, scale - v.squaredNorm());
  if (!with_gradient) return out;
  const Eigen::VectorXd beta = llt_.matrixU().solve(v);
  // dk_i/dx_d = f_i w_d (x_d - x_id), f_i = 2 scale slope(r_i^2), so
  // sum_i dk_i c_i = w_d (x_d sum_i f_i c_i - sum_i f_i c_i x_id).
  const Eigen::ArrayXd f = 2.0 * scale * (-5.0 / 6.0) * (1.0 + kSqrt5 * r) * e;
  const auto weighted = [&](const Eigen::VectorXd& c) {
    const Eigen::VectorXd fc = (f * c.array()).matrix();
    Eigen::VectorXd out_d = point * fc.sum() - x_.transpose() * fc;
    out_d.array() *= kernel_.params().inverse_sq_lengthscale.array();
    for (Eigen::Index d = 0; d < out_d.size(); ++d) {
      if (kernel_.categorical()[static_cast<size_t>(d)]) out_d[d] = 0.0;
    }
    return out_d;
  };
  out.d_mean = weighted(alpha_);
  out.d_variance = -2.0 * weighted(beta);
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
  return GpPosterior(kernel_, std::move(x), std::move(y), more_y.size() + believed_);
}

}  // namespace hpo
