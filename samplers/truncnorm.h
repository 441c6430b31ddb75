// The standard normal distribution truncated to [a, b]: the kernel of TPE's
// Parzen estimators. Written to stay accurate far in the tails, where a
// kernel's mass over a grid cell can be 1e-300 and less.
#ifndef HPO_SAMPLERS_TRUNCNORM_H_
#define HPO_SAMPLERS_TRUNCNORM_H_

namespace hpo {
namespace truncnorm {

// log(2*pi) / 2.
constexpr double kLogSqrt2Pi = 0.91893853320467274178;

// The standard normal CDF Phi(x).
double ndtr(double x);

// log Phi(x), finite down to x = -1e150 or so.
double log_ndtr(double x);

// log(Phi(b) - Phi(a)) for a <= b; -inf when a == b.
double log_gauss_mass(double a, double b);

// The inverse of Phi, for p in (0, 1).
double ndtri(double p);

// Maps u in [0, 1) to a draw from the standard normal truncated to [a, b]
// (inverse-CDF sampling).
double sample(double a, double b, double u);

// log density at x of the standard normal truncated to [a, b].
double log_pdf(double x, double a, double b);

}  // namespace truncnorm
}  // namespace hpo

#endif  // HPO_SAMPLERS_TRUNCNORM_H_
