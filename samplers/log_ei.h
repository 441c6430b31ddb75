// log Expected Improvement, stable far into the tail.
//
// For a maximized standardized objective with posterior N(mean, sd^2) and
// incumbent `best`, EI = sd * h(z) with z = (mean - best) / sd and
// h(z) = phi(z) + z * Phi(z). Far below the incumbent h(z) underflows and
// the naive sum cancels, so an acquisition optimizer would see flat zeros;
// log h is computed instead as log phi(z) + log(h(z) / phi(z)), the ratio
// from the Mills ratio (erfcx) for moderate z and from its asymptotic
// series deep in the tail (Ament et al. 2023, "Unexpected Improvements to
// Expected Improvement for Bayesian Optimization", log-h formulation).
#ifndef HPO_SAMPLERS_LOG_EI_H_
#define HPO_SAMPLERS_LOG_EI_H_

namespace hpo {

// log h(z); finite for every finite z.
double log_h(double z);

// d log h / dz = Phi(z) / h(z); positive, about -z deep in the tail.
double d_log_h(double z);

// The Mills ratio R(x) = (1 - Phi(x)) / phi(x) for x >= 0.
double mills_ratio(double x);

}  // namespace hpo

#endif  // HPO_SAMPLERS_LOG_EI_H_
