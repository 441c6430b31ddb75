// The standard normal distribution's CDF and quantile.
#ifndef HPO_STATS_NORMAL_H_
#define HPO_STATS_NORMAL_H_

namespace hpo::stats {

// Phi(x) = erfc(-x / sqrt(2)) / 2, accurate in both tails.
double normal_cdf(double x);

// Phi^-1(p) for p in (0, 1); -inf at 0, +inf at 1, NaN outside [0, 1].
// samplers/truncnorm's ndtri: Acklam's rational approximation refined by
// one Halley step, to about 1e-15.
double normal_quantile(double p);

}  // namespace hpo::stats

#endif  // HPO_STATS_NORMAL_H_
