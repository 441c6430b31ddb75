#include "samplers/random_sampler.h"

#include <algorithm>
#include <cmath>

#include "samplers/conditions.h"

namespace hpo {

namespace {

double uniform01(std::mt19937_64& rng) {
  // 53 random bits -> [0, 1); std::generate_canonical is allowed to return 1.
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

int64_t uniform_index(std::mt19937_64& rng, int64_t n) {
  return std::min<int64_t>(n - 1, static_cast<int64_t>(uniform01(rng) * static_cast<double>(n)));
}

double sample_float(const FloatDistribution& d, std::mt19937_64& rng) {
  if (d.step) {
    const auto n = static_cast<int64_t>(std::llround((d.high - d.low) / *d.step)) + 1;
    return std::min(d.high, d.low + static_cast<double>(uniform_index(rng, n)) * *d.step);
  }
  if (d.log) {
    const double lo = std::log(d.low), hi = std::log(d.high);
    return std::clamp(std::exp(lo + uniform01(rng) * (hi - lo)), d.low, d.high);
  }
  return std::clamp(d.low + uniform01(rng) * (d.high - d.low), d.low, d.high);
}

double sample_int(const IntDistribution& d, std::mt19937_64& rng) {
  if (d.log) {
    // Uniform in log space over [low - 0.5, high + 0.5], then rounded, so each
    // integer gets the log-width of its own rounding interval.
    const double lo = std::log(static_cast<double>(d.low) - 0.5);
    const double hi = std::log(static_cast<double>(d.high) + 0.5);
    const double v = std::round(std::exp(lo + uniform01(rng) * (hi - lo)));
    return std::clamp(v, static_cast<double>(d.low), static_cast<double>(d.high));
  }
  const int64_t n = (d.high - d.low) / d.step + 1;
  return static_cast<double>(d.low + uniform_index(rng, n) * d.step);
}

}  // namespace

double sample_uniform(const Distribution& dist, std::mt19937_64& rng) {
  if (const auto* f = std::get_if<FloatDistribution>(&dist)) return sample_float(*f, rng);
  if (const auto* i = std::get_if<IntDistribution>(&dist)) return sample_int(*i, rng);
  const auto& c = std::get<CategoricalDistribution>(dist);
  return static_cast<double>(uniform_index(rng, static_cast<int64_t>(c.choices.size())));
}

ParamValues RandomSampler::ask(const SearchSpace& space, int number) {
  std::mt19937_64 rng(trial_seed(number));
  ParamValues values;
  for (const auto& param : space) values[param.name] = sample_uniform(param.distribution, rng);
  return drop_inactive(space, std::move(values));
}

}  // namespace hpo
