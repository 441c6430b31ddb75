#include "hpo/stats/deflated_sharpe.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hpo/stats/normal.h"

namespace hpo::stats {

namespace {
constexpr double kEulerGamma = 0.57721566490153286061;
constexpr double kE = 2.71828182845904523536;
}  // namespace

double probabilistic_sharpe_ratio(double sharpe, double benchmark, int t, double skew,
                                  double kurtosis) {
  const double var = 1 - skew * sharpe + (kurtosis - 1) / 4 * sharpe * sharpe;
  if (t < 2 || !(var > 0)) return std::numeric_limits<double>::quiet_NaN();
  return normal_cdf((sharpe - benchmark) * std::sqrt(t - 1.0) / std::sqrt(var));
}

double expected_max_sharpe(double n, double variance) {
  if (!(n > 1)) return 0;  // one trial: nothing was selected
  // The approximation is negative for n below about 1.28 (and heads to -inf
  // as n -> 1), while the best of n >= 1 draws is never expected below 0:
  // clamp, so that a very correlated sweep's DSR cannot exceed its PSR(0).
  const double z = (1 - kEulerGamma) * normal_quantile(1 - 1 / n) +
                   kEulerGamma * normal_quantile(1 - 1 / (n * kE));
  return std::sqrt(variance) * std::max(z, 0.0);
}

DeflatedSharpe deflated_sharpe_ratio(double sharpe, int t, double skew, double kurtosis, double n,
                                     double variance) {
  DeflatedSharpe d;
  d.sharpe = sharpe;
  d.benchmark = expected_max_sharpe(n, variance);
  d.dsr = probabilistic_sharpe_ratio(sharpe, d.benchmark, t, skew, kurtosis);
  return d;
}

}  // namespace hpo::stats
