#include "hpo/stats/normal.h"

#include <cmath>
#include <limits>

#include "samplers/truncnorm.h"

namespace hpo::stats {

// The samplers already keep an accurate Phi and its inverse (Acklam's
// approximation refined by a Halley step) for TPE's kernels; the sweep's
// statistics use the same ones.
double normal_cdf(double x) { return truncnorm::ndtr(x); }

double normal_quantile(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return std::numeric_limits<double>::quiet_NaN();
  return truncnorm::ndtri(p);
}

}  // namespace hpo::stats
