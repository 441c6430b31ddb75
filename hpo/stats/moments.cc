#include "hpo/stats/moments.h"

#include <cmath>
#include <limits>

namespace hpo::stats {

Moments moments(const std::vector<double>& x) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  Moments m;
  m.n = static_cast<int>(x.size());
  if (x.empty()) return {0, kNaN, kNaN, kNaN, kNaN};
  double sum = 0;
  for (double v : x) sum += v;
  m.mean = sum / m.n;
  // Central moments in a second pass: exact for series whose mean is large
  // next to their spread, which the one-pass sums are not.
  double m2 = 0, m3 = 0, m4 = 0;
  for (double v : x) {
    const double d = v - m.mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  m.std = m.n > 1 ? std::sqrt(m2 / (m.n - 1)) : kNaN;
  m2 /= m.n;
  m3 /= m.n;
  m4 /= m.n;
  m.skew = m2 > 0 ? m3 / std::pow(m2, 1.5) : kNaN;
  m.kurtosis = m2 > 0 ? m4 / (m2 * m2) : kNaN;
  return m;
}

bool negligible_spread(double std, double mean) {
  // 1e-10: far above the relative rounding of a sum of doubles, far below
  // any real strategy's volatility next to its daily mean.
  return !(std > 1e-10 * std::abs(mean));
}

double sharpe_ratio(const std::vector<double>& x) {
  const Moments m = moments(x);
  return m.n > 1 && !negligible_spread(m.std, m.mean) ? m.mean / m.std
                                                      : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace hpo::stats
