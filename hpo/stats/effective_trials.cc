#include "hpo/stats/effective_trials.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hpo/stats/moments.h"

namespace hpo::stats {

double mean_pairwise_correlation(const Series& rows) {
  if (rows.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> total(rows.front().size(), 0.0);
  int k = 0;
  for (const auto& row : rows) {
    double mean = 0;
    for (double v : row) mean += v;
    mean /= static_cast<double>(row.size());
    double ss = 0;
    for (double v : row) ss += (v - mean) * (v - mean);
    // A constant series (spread only from rounding) has no correlation.
    if (row.size() < 2 || negligible_spread(std::sqrt(ss / (row.size() - 1.0)), mean)) continue;
    const double scale = 1 / std::sqrt(ss);
    for (size_t i = 0; i < row.size() && i < total.size(); ++i) total[i] += (row[i] - mean) * scale;
    ++k;
  }
  if (k < 2) return std::numeric_limits<double>::quiet_NaN();
  double norm2 = 0;
  for (double v : total) norm2 += v * v;
  return (norm2 - k) / (static_cast<double>(k) * (k - 1));
}

double effective_trials(double n, double rho) {
  if (std::isnan(rho) || n <= 1) return std::max(n, 1.0);
  return std::clamp(rho + (1 - rho) * n, 1.0, n);
}

}  // namespace hpo::stats
