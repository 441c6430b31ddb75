// What the TPE tests share: the mixed search space and objective (floats,
// log floats, stepped floats, ints, log ints, ordered and plain
// categoricals, and a parameter with a single value), and how they tell a
// finished trial and run a sequential study (the GP tests use them too).
#ifndef HPO_TESTS_UNIT_TPE_TEST_SPACE_H_
#define HPO_TESTS_UNIT_TPE_TEST_SPACE_H_

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "samplers/sampler.h"

namespace hpo {

inline CategoricalDistribution choices(std::vector<ParamValue> values) {
  return {std::move(values)};
}

inline SearchSpace mixed_space() {
  return {
      {"batch_size", choices({int64_t{512}, int64_t{256}, int64_t{2048}, int64_t{1024}})},
      {"activation", choices({std::string("relu"), std::string("tanh"), std::string("gelu")})},
      {"lr", FloatDistribution{1e-5, 1e-1, true, std::nullopt}},
      {"dropout", FloatDistribution{0.0, 0.5, false, 0.1}},
      {"momentum", FloatDistribution{0.5, 0.99, false, std::nullopt}},
      {"layers", IntDistribution{1, 10, false, 3}},
      {"width", IntDistribution{8, 1024, true, 1}},
      {"fixed", IntDistribution{4, 4, false, 1}},
  };
}

inline double mixed_objective(const ParamValues& v) {
  return std::pow(std::log10(v.at("lr")) + 3, 2) + std::fabs(v.at("dropout") - 0.2) +
         std::pow(v.at("momentum") - 0.9, 2) + (v.at("activation") == 1 ? 0 : 0.5) +
         std::fabs(v.at("batch_size") - 3) * 0.3 + std::fabs(v.at("layers") - 7) * 0.1 +
         std::fabs(std::log2(v.at("width")) - 6) * 0.1;
}

// Tells `s` that trial `number` ended COMPLETE with `v` and `value`.
inline void tell_complete(Sampler& s, int number, const ParamValues& v, double value) {
  TrialView t;
  t.number = number;
  t.state = TrialState::kComplete;
  t.params = v;
  t.value = value;
  s.tell(t);
}

// Runs a sequential study on `f` (minimized); returns the best value found.
template <typename Function>
double run_minimizing(Sampler& s, const SearchSpace& space, const Function& f, int n_trials) {
  double best = INFINITY;
  for (int n = 0; n < n_trials; ++n) {
    const auto v = s.ask(space, n);
    const double y = f(v);
    best = std::min(best, y);
    tell_complete(s, n, v, y);
  }
  return best;
}

}  // namespace hpo

#endif  // HPO_TESTS_UNIT_TPE_TEST_SPACE_H_
