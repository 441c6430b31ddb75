// Independent uniform sampling of each parameter: uniform in value (or in
// log-value for log distributions), uniform over grid points for stepped
// ones, uniform over choices for categoricals.
#ifndef HPO_SAMPLERS_RANDOM_SAMPLER_H_
#define HPO_SAMPLERS_RANDOM_SAMPLER_H_

#include <random>

#include "samplers/sampler.h"

namespace hpo {

class RandomSampler : public Sampler {
 public:
  RandomSampler(uint64_t seed, Direction direction) : Sampler(seed, direction) {}

  std::string name() const override { return "random"; }
  ParamValues ask(const SearchSpace& space, int number) override;
};

// One uniform draw from `dist`, in internal representation. Shared with
// samplers that fall back to random sampling (TPE's start-up trials).
double sample_uniform(const Distribution& dist, std::mt19937_64& rng);

// The value of `dist` at u in [0, 1): uniform in value, log-value, grid
// point or choice, as sample_uniform draws it (which is from_unit of one
// uniform draw), so that quasi-random startup points (sobol_startup.h) map
// to each distribution as random ones do.
double from_unit(const Distribution& dist, double u);

}  // namespace hpo

#endif  // HPO_SAMPLERS_RANDOM_SAMPLER_H_
