#include "samplers/log_ei.h"

#include <cmath>

namespace hpo {

namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log(sqrt(2 pi))
constexpr double kSqrtHalfPi = 1.25331413731550025121;  // sqrt(pi / 2)
// Below -1 the naive phi + z Phi cancels; beyond kSeriesFrom the asymptotic
// series is exact to double precision (its next term is below 1e-17
// relative there) and erfc nears underflow.
constexpr double kTailFrom = -1.0;
constexpr double kSeriesFrom = 30.0;
constexpr int kSeriesTerms = 10;

// exp(t^2) * erfc(t) for 0 <= t <= 22 (x < kSeriesFrom); t^2's rounding error is carried
// into exp by fma, since it would otherwise cost t^2 ulps.
double erfcx(double t) {
  const double sq = t * t;
  const double sq_error = std::fma(t, t, -sq);
  return std::exp(sq) * (1.0 + sq_error) * std::erfc(t);
}

// Sum_{k >= first} (-1)^(k - first) (2k - 1)!! / x^(2k), the asymptotic
// series of the Mills ratio's expansions.
double odd_factorial_series(double x, int first) {
  const double inv_sq = 1.0 / (x * x);
  double term = 1.0, sum = 0.0;
  for (int k = 0; k < first + kSeriesTerms; ++k) {
    if (k > 0) term *= (2 * k - 1) * inv_sq;
    if (k >= first) sum += ((k - first) % 2 == 0) ? term : -term;
  }
  return sum;
}

// h(-x) / phi(x) = 1 - x R(x) for x >= 1, without the cancellation of
// the difference where the series applies.
double tail_ratio(double x) {
  if (x >= kSeriesFrom) return odd_factorial_series(x, 1);
  return 1.0 - x * mills_ratio(x);
}

double log_phi(double z) { return -0.5 * z * z - kLogSqrt2Pi; }

double phi(double z) { return std::exp(log_phi(z)); }

double cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

}  // namespace

double mills_ratio(double x) {
  if (x >= kSeriesFrom) return odd_factorial_series(x, 0) / x;
  return kSqrtHalfPi * erfcx(x / std::sqrt(2.0));
}

double log_h(double z) {
  if (z >= kTailFrom) return std::log(phi(z) + z * cdf(z));
  return log_phi(z) + std::log(tail_ratio(-z));
}

double d_log_h(double z) {
  if (z >= kTailFrom) return cdf(z) / (phi(z) + z * cdf(z));
  return mills_ratio(-z) / tail_ratio(-z);
}

}  // namespace hpo
