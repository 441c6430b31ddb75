// Per-period return statistics of one series: mean, standard deviation,
// Sharpe ratio, skewness and kurtosis.
#ifndef HPO_STATS_MOMENTS_H_
#define HPO_STATS_MOMENTS_H_

#include <vector>

namespace hpo::stats {

struct Moments {
  int n = 0;
  double mean = 0;
  double std = 0;  // sample standard deviation (divides by n - 1)
  double skew = 0;  // m3 / m2^1.5, the population-moment estimator
  double kurtosis = 3;  // m4 / m2^2, non-excess (3 for a normal)
};

// NaN fields where n is too small (std needs 2 values) or the series is
// constant (skew and kurtosis need a spread).
Moments moments(const std::vector<double>& x);

// True when a standard deviation is nothing next to its mean: a constant
// series whose rounding left a spread of 1e-19 would otherwise have a Sharpe
// ratio of 1e14 and wreck the variance of every trial's Sharpe ratio.
bool negligible_spread(double std, double mean);

// mean / std per period, not annualized; NaN when n < 2 or the spread is
// negligible (a series without risk has no Sharpe ratio).
double sharpe_ratio(const std::vector<double>& x);

}  // namespace hpo::stats

#endif  // HPO_STATS_MOMENTS_H_
