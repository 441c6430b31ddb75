#include "samplers/random_sampler.h"

#include <algorithm>
#include <cmath>

#include "samplers/conditions.h"
#include "samplers/startup.h"
#include "samplers/uniform.h"

namespace hpo {

namespace {

double float_from_unit(const FloatDistribution& d, double u) {
  if (d.step) {
    const auto n = static_cast<int64_t>(std::llround((d.high - d.low) / *d.step)) + 1;
    return std::min(d.high, d.low + static_cast<double>(unit_index(u, n)) * *d.step);
  }
  if (d.log) {
    const double lo = std::log(d.low), hi = std::log(d.high);
    return std::clamp(std::exp(lo + u * (hi - lo)), d.low, d.high);
  }
  return std::clamp(d.low + u * (d.high - d.low), d.low, d.high);
}

double int_from_unit(const IntDistribution& d, double u) {
  if (d.log) {
    // Uniform in log space over [low - 0.5, high + 0.5], then rounded, so each
    // integer gets the log-width of its own rounding interval.
    const double lo = std::log(static_cast<double>(d.low) - 0.5);
    const double hi = std::log(static_cast<double>(d.high) + 0.5);
    const double v = std::round(std::exp(lo + u * (hi - lo)));
    return std::clamp(v, static_cast<double>(d.low), static_cast<double>(d.high));
  }
  const int64_t n = (d.high - d.low) / d.step + 1;
  return static_cast<double>(d.low + unit_index(u, n) * d.step);
}

}  // namespace

double from_unit(const Distribution& dist, double u) {
  if (const auto* f = std::get_if<FloatDistribution>(&dist)) return float_from_unit(*f, u);
  if (const auto* i = std::get_if<IntDistribution>(&dist)) return int_from_unit(*i, u);
  const auto& c = std::get<CategoricalDistribution>(dist);
  return static_cast<double>(unit_index(u, static_cast<int64_t>(c.choices.size())));
}

double sample_uniform(const Distribution& dist, std::mt19937_64& rng) {
  return from_unit(dist, uniform01(rng));
}

ParamValues RandomSampler::ask(const SearchSpace& space, int number) {
  return drop_inactive(
      space, startup_values(StartupKind::kRandom, space, seed(), trial_seed(number), number));
}

}  // namespace hpo
