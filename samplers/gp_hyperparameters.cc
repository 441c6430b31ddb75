#include "samplers/gp_hyperparameters.h"

#include <Eigen/Cholesky>
#include <cmath>
#include <limits>

#include "samplers/bounded_minimize.h"

namespace hpo {

namespace {

constexpr double kLengthscaleShape = 3.0, kLengthscaleRate = 6.0;
constexpr double kScaleShape = 2.0, kScaleRate = 2.0;
constexpr double kNoiseShape = 1.1, kNoiseRate = 20.0;
// The source dimension's lengthscale (gp_sources.h): mode 2, a correlation
// of 0.83 between stages at the same point, with tails wide enough that a
// few of this study's trials that disagree with the earlier stage pull it
// below 0.15 (lengthscale 0.5), and ones that agree up to 0.99 (10).
constexpr double kSourceShape = 2.0, kSourceRate = 0.5;
constexpr double kMinLengthscale = 0.01, kMaxLengthscale = 10.0;
constexpr double kMinScale = 0.05, kMaxScale = 20.0;
constexpr double kMinNoise = 1e-6, kMaxNoise = 1.0;
constexpr double kLog2Pi = 1.83787706640934548356;
constexpr int kMaxIterations = 100;

// log Gamma(shape, rate) density of p = exp(t), as a density over t (the
// Jacobian adds t), up to a constant: shape * t - rate * exp(t).
double log_prior(double t, double shape, double rate, double& d_t) {
  d_t = shape - rate * std::exp(t);
  return shape * t - rate * std::exp(t);
}

// The lengthscale's prior over t = log w = -2 log lengthscale.
double log_lengthscale_prior(double t, double& d_t, bool source = false) {
  double d_log_l = 0.0;
  const double value = source ? log_prior(-0.5 * t, kSourceShape, kSourceRate, d_log_l)
                              : log_prior(-0.5 * t, kLengthscaleShape, kLengthscaleRate, d_log_l);
  d_t = -0.5 * d_log_l;
  return value;
}

double log_priors(const Eigen::VectorXd& theta, Eigen::VectorXd& gradient, bool source_dim) {
  const Eigen::Index dims = theta.size() - 2;
  double sum = 0.0, d = 0.0;
  for (Eigen::Index i = 0; i < dims; ++i) {
    sum += log_lengthscale_prior(theta[i], d, source_dim && i == dims - 1);
    gradient[i] = d;
  }
  sum += log_prior(theta[dims], kScaleShape, kScaleRate, d);
  gradient[dims] = d;
  sum += log_prior(theta[dims + 1], kNoiseShape, kNoiseRate, d);
  gradient[dims + 1] = d;
  return sum;
}

}  // namespace

Eigen::VectorXd kernel_theta(const KernelParams& params) {
  const Eigen::Index dims = params.inverse_sq_lengthscale.size();
  Eigen::VectorXd theta(dims + 2);
  theta.head(dims) = params.inverse_sq_lengthscale.array().log();
  theta[dims] = std::log(params.scale);
  theta[dims + 1] = std::log(params.noise);
  return theta;
}

KernelParams kernel_params(const Eigen::VectorXd& theta) {
  const Eigen::Index dims = theta.size() - 2;
  KernelParams params;
  params.inverse_sq_lengthscale = theta.head(dims).array().exp();
  params.scale = std::exp(theta[dims]);
  params.noise = std::exp(theta[dims + 1]);
  return params;
}

namespace {

// diff_d(x_i, x_j) for every pair, one matrix per dimension: computed once
// per fit, so that each evaluation is matrix arithmetic.
std::vector<Eigen::MatrixXd> pair_differences(const Eigen::MatrixXd& x,
                                              const std::vector<bool>& categorical) {
  const Eigen::Index n = x.rows();
  std::vector<Eigen::MatrixXd> out;
  for (Eigen::Index d = 0; d < x.cols(); ++d) {
    Eigen::MatrixXd diff(n, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      for (Eigen::Index i = 0; i < n; ++i)
        diff(i, j) = dimension_difference(x(i, d), x(j, d), categorical[static_cast<size_t>(d)]);
    }
    out.push_back(std::move(diff));
  }
  return out;
}

// With M = K^-1 - alpha alpha', d(-log likelihood)/d theta_j = tr(M dK_j) / 2,
// where dK/d log w_d = scale * slope(r^2) * w_d * diff_d, dK/d log scale is
// the noise-free K and dK/d log noise = noise I.
double negative_log_posterior(const Eigen::VectorXd& theta,
                              const std::vector<Eigen::MatrixXd>& diffs, const Eigen::VectorXd& y,
                              Eigen::VectorXd& gradient, bool source_dim) {
  const KernelParams params = kernel_params(theta);
  const auto n = y.size();
  const auto dims = static_cast<Eigen::Index>(diffs.size());
  Eigen::ArrayXXd r_sq = Eigen::ArrayXXd::Zero(n, n);
  for (Eigen::Index d = 0; d < dims; ++d)
    r_sq += params.inverse_sq_lengthscale[d] * diffs[static_cast<size_t>(d)].array();
  const Eigen::MatrixXd k_free = params.scale * matern52(r_sq).matrix();
  Eigen::MatrixXd k = k_free;
  k.diagonal().array() += params.noise;
  const Eigen::LLT<Eigen::MatrixXd> llt(k);
  if (llt.info() != Eigen::Success) {
    gradient.setZero();
    return std::numeric_limits<double>::infinity();
  }
  const Eigen::VectorXd alpha = llt.solve(y);
  const Eigen::MatrixXd m = llt.solve(Eigen::MatrixXd::Identity(n, n)) - alpha * alpha.transpose();
  const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  double value = 0.5 * y.dot(alpha) + 0.5 * log_det + 0.5 * static_cast<double>(n) * kLog2Pi;

  Eigen::VectorXd prior_gradient(theta.size());
  value -= log_priors(theta, prior_gradient, source_dim);
  gradient = -prior_gradient;
  const Eigen::ArrayXXd m_slope = m.array() * (params.scale * r_sq.unaryExpr(&matern52_slope));
  for (Eigen::Index d = 0; d < dims; ++d) {
    gradient[d] += 0.5 * params.inverse_sq_lengthscale[d] *
                   (m_slope * diffs[static_cast<size_t>(d)].array()).sum();
  }
  gradient[dims] += 0.5 * (m.array() * k_free.array()).sum();
  gradient[dims + 1] += 0.5 * params.noise * m.trace();
  return value;
}

}  // namespace

double negative_log_posterior(const Eigen::VectorXd& theta, const Eigen::MatrixXd& x,
                              const Eigen::VectorXd& y, const std::vector<bool>& categorical,
                              Eigen::VectorXd& gradient, bool source_dim) {
  return negative_log_posterior(theta, pair_differences(x, categorical), y, gradient, source_dim);
}

KernelParams fit_kernel(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                        const std::vector<bool>& categorical, bool deterministic, bool source_dim) {
  const Eigen::Index dims = x.cols();
  Eigen::VectorXd lower(dims + 2), upper(dims + 2);
  lower.head(dims).setConstant(-2.0 * std::log(kMaxLengthscale));
  upper.head(dims).setConstant(-2.0 * std::log(kMinLengthscale));
  lower[dims] = std::log(kMinScale);
  upper[dims] = std::log(kMaxScale);
  lower[dims + 1] = std::log(kMinNoise);
  upper[dims + 1] = deterministic ? lower[dims + 1] : std::log(kMaxNoise);

  // Start at the priors' modes (noise: 0.01, or the floor when deterministic).
  KernelParams start;
  const double lengthscale = (kLengthscaleShape - 1.0) / kLengthscaleRate;
  start.inverse_sq_lengthscale = Eigen::VectorXd::Constant(dims, 1.0 / (lengthscale * lengthscale));
  if (source_dim) {
    const double source_lengthscale = (kSourceShape - 1.0) / kSourceRate;
    start.inverse_sq_lengthscale[dims - 1] = 1.0 / (source_lengthscale * source_lengthscale);
  }
  start.scale = 1.0;
  start.noise = deterministic ? kMinNoise : 0.01;
  Eigen::VectorXd theta = kernel_theta(start);
  const auto diffs = pair_differences(x, categorical);
  const Objective f = [&](const Eigen::VectorXd& t, Eigen::VectorXd& grad) {
    return negative_log_posterior(t, diffs, y, grad, source_dim);
  };
  bounded_minimize(f, theta, lower, upper, kMaxIterations);
  return kernel_params(theta);
}

}  // namespace hpo
