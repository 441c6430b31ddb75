#include "samplers/gp_targets.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hpo {

namespace {

// Lambda's search: a coarse grid, then a finer one around its best.
constexpr double kMinLambda = -3.0, kMaxLambda = 5.0, kCoarseStep = 0.5, kFineStep = 0.1;

Eigen::VectorXd transformed(const Eigen::VectorXd& y, double lambda) {
  return y.unaryExpr([lambda](double v) { return yeo_johnson(v, lambda); });
}

// The profile log-likelihood of lambda: a normal fit to the transformed
// values, plus the transform's log-Jacobian.
double log_likelihood(const Eigen::VectorXd& y, double lambda) {
  const Eigen::VectorXd t = transformed(y, lambda);
  const double n = static_cast<double>(y.size());
  const double variance = (t.array() - t.mean()).square().sum() / n;
  const double log_jacobian = (y.array().sign() * y.array().abs().log1p()).sum();
  return -0.5 * n * std::log(std::max(variance, 1e-300)) + (lambda - 1.0) * log_jacobian;
}

double best_lambda(const Eigen::VectorXd& y) {
  double best = 1.0, best_value = log_likelihood(y, 1.0);
  const auto consider = [&](double lambda) {
    const double value = log_likelihood(y, lambda);
    if (value > best_value) {
      best_value = value;
      best = lambda;
    }
  };
  for (double lambda = kMinLambda; lambda <= kMaxLambda + 1e-9; lambda += kCoarseStep)
    consider(lambda);
  const double center = best;
  for (int i = -4; i <= 4; ++i) consider(center + kFineStep * i);
  return best;
}

// Values less their median, over the interquartile range's normal-sd
// equivalent; empty when the range is zero.
Eigen::VectorXd robust_scale(const Eigen::VectorXd& values) {
  std::vector<double> sorted(values.data(), values.data() + values.size());
  std::sort(sorted.begin(), sorted.end());
  const auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
  };
  const double spread = (quantile(0.75) - quantile(0.25)) / 1.349;
  if (!(spread > 1e-12)) return Eigen::VectorXd();
  return (values.array() - quantile(0.5)) / spread;
}

}  // namespace

double yeo_johnson(double y, double lambda) {
  if (y >= 0) {
    return std::abs(lambda) < 1e-9 ? std::log1p(y) : (std::pow(1.0 + y, lambda) - 1.0) / lambda;
  }
  const double mirrored = 2.0 - lambda;
  return std::abs(mirrored) < 1e-9 ? -std::log1p(-y)
                                   : -(std::pow(1.0 - y, mirrored) - 1.0) / mirrored;
}

Eigen::VectorXd standardize(const Eigen::VectorXd& values) {
  Eigen::VectorXd y = values;
  if (y.size() == 0) return y;
  y.array() -= y.mean();
  const double sd = std::sqrt(y.squaredNorm() / static_cast<double>(y.size()));
  if (sd > 1e-12) y /= sd;
  return y;
}

Eigen::VectorXd gp_targets(const Eigen::VectorXd& values) {
  if (values.size() < 3) return standardize(values);
  const Eigen::VectorXd y = robust_scale(values);
  if (y.size() == 0) return standardize(values);
  return standardize(transformed(y, best_lambda(y)));
}

}  // namespace hpo
