// per_parameter_from: a wide space gets one model per parameter, a narrow
// one keeps the joint model; multi-objective TPE turns it on by default.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "samplers/motpe_sampler.h"
#include "samplers/tpe_sampler.h"

namespace hpo {
namespace {

SearchSpace cube_space(int n) {
  SearchSpace s;
  for (int i = 0; i < n; ++i)
    s.push_back({"x" + std::to_string(i), FloatDistribution{0, 1, false, std::nullopt}});
  return s;
}

// The suggestions of 20 sequential trials on a sphere around 0.3.
std::vector<ParamValues> suggestions(TpeOptions options, int dims) {
  TpeSampler s(7, Direction::kMinimize, options);
  const SearchSpace space = cube_space(dims);
  std::vector<ParamValues> out;
  for (int n = 0; n < 20; ++n) {
    TrialView t;
    t.number = n;
    t.state = TrialState::kComplete;
    t.params = s.ask(space, n);
    double v = 0;
    for (const auto& [name, x] : t.params) v += (x - 0.3) * (x - 0.3);
    t.value = v;
    t.values = {v};
    s.tell(t);
    out.push_back(t.params);
  }
  return out;
}

TpeOptions with(bool multivariate, int per_parameter_from) {
  TpeOptions o;
  o.multivariate = multivariate;
  o.per_parameter_from = per_parameter_from;
  return o;
}

TEST_CASE("per_parameter_from: a space that wide is modelled one parameter at a time") {
  CHECK(suggestions(with(true, 10), 10) == suggestions(with(false, 0), 10));
  CHECK(suggestions(with(true, 10), 10) != suggestions(with(true, 0), 10));
}

TEST_CASE("per_parameter_from: a narrower space keeps the joint model") {
  CHECK(suggestions(with(true, 10), 9) == suggestions(with(true, 0), 9));
  CHECK(suggestions(with(true, 10), 9) != suggestions(with(false, 0), 9));
}

TEST_CASE("multi-objective TPE's defaults: per-parameter models from 10, Optuna's g(x) weights") {
  const TpeOptions o = motpe_default_options();
  CHECK(o.multivariate);
  CHECK(o.per_parameter_from == 10);
  CHECK(o.weighting == TpeWeighting::kOptuna);
  MotpeSampler s(1, {Direction::kMinimize, Direction::kMinimize});
  CHECK(s.options().per_parameter_from == 10);
}

}  // namespace
}  // namespace hpo
