#include "samplers/kernel_width.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hpo {

namespace {

// The p-quantile of sorted values, interpolated linearly between ranks.
double quantile(const std::vector<double>& sorted, double p) {
  const double pos = p * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

double scott_bandwidth(const Eigen::ArrayXd& mus) {
  const Eigen::Index n = mus.size();
  if (n < 2) return 0.0;
  const double mean = mus.mean();
  const double sd = std::sqrt((mus - mean).square().sum() / static_cast<double>(n - 1));
  std::vector<double> sorted(mus.begin(), mus.end());
  std::sort(sorted.begin(), sorted.end());
  const double iqr = quantile(sorted, 0.75) - quantile(sorted, 0.25);
  return 1.059 * std::min(iqr / 1.34, sd) * std::pow(static_cast<double>(n), -0.2);
}

double magic_min_bandwidth(double range, int n_kernels, double factor, double exponent) {
  return range / std::min(1.0 / factor, std::pow(1.0 + n_kernels, exponent));
}

}  // namespace hpo
