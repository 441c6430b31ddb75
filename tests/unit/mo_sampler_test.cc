#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hpo/config/config_error.h"
#include "hpo/run/mo_sampler_factory.h"
#include "samplers/hypervolume.h"
#include "samplers/motpe_sampler.h"
#include "samplers/nsga2_sampler.h"
#include "samplers/random_sampler.h"
#include "tests/unit/motpe_split_probe.h"

namespace hpo {
namespace {

const std::vector<Direction> kMinMin = {Direction::kMinimize, Direction::kMinimize};

SearchSpace cube(int n) {
  SearchSpace s;
  for (int i = 0; i < n; ++i)
    s.push_back({"x" + std::to_string(i), FloatDistribution{0, 1, false, std::nullopt}});
  return s;
}

// ZDT1: the front is f2 = 1 - sqrt(f1) where every x but the first is 0.
std::vector<double> zdt1(const ParamValues& p) {
  const double f1 = p.at("x0");
  double g = 0;
  for (const auto& [name, v] : p) g += name == "x0" ? 0 : v;
  g = 1 + 9 * g / static_cast<double>(p.size() - 1);
  return {f1, g * (1 - std::sqrt(f1 / g))};
}

TrialView complete(int number, const ParamValues& params, std::vector<double> values,
                   std::vector<double> constraints = {}) {
  TrialView t;
  t.number = number;
  t.state = TrialState::kComplete;
  t.params = params;
  t.value = values.front();
  t.values = std::move(values);
  t.constraints = std::move(constraints);
  return t;
}

// Runs `trials` sequential trials of ZDT1; the hypervolume against (1.1, 1.1)... scaled
// reference (11, 11) keeps early, poor trials counted.
double run_zdt1(Sampler& s, int trials) {
  const SearchSpace space = cube(5);
  Losses points;
  for (int n = 0; n < trials; ++n) {
    const ParamValues p = s.ask(space, n);
    const auto v = zdt1(p);
    points.push_back(v);
    s.tell(complete(n, p, v));
  }
  return hypervolume(points, {11, 11});
}

TEST_CASE("nsga2: generation 0 is the random sampler's draws") {
  Nsga2Sampler n(5, kMinMin);
  RandomSampler r(5, Direction::kMinimize);
  for (int i = 0; i < 3; ++i) CHECK(n.ask(cube(3), i) == r.ask(cube(3), i));
}

TEST_CASE("nsga2: survival keeps whole fronts, then the least crowded of the last") {
  const std::vector<int> numbers = {0, 1, 2, 3, 4, 5};
  const Losses losses = {{0, 4}, {4, 0}, {1, 5}, {2, 2}, {5, 1}, {3, 3}};
  // Front 0: 0, 1, 3; front 1: 2, 4, 5 with 5 in the middle.
  const auto kept = nsga2_survivors(numbers, losses, {{}, {}, {}, {}, {}, {}}, 5);
  std::vector<int> got;
  for (const auto& m : kept) got.push_back(m.number);
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<int>{0, 1, 2, 3, 4});
  // A feasible point beats every infeasible one, whatever its losses.
  const auto feasible = nsga2_survivors({0, 1}, {{0, 0}, {9, 9}}, {{1}, {-1}}, 1);
  CHECK(feasible.front().number == 1);
}

TEST_CASE("nsga2: children take each value from a parent or draw it anew") {
  Nsga2Options o;
  o.population_size = 4;
  Nsga2Sampler s(3, kMinMin, o);
  const SearchSpace space = cube(3);
  std::vector<ParamValues> seen;
  for (int n = 0; n < 12; ++n) {
    const ParamValues p = s.ask(space, n);
    CHECK(p.size() == 3);
    seen.push_back(p);
    s.tell(complete(n, p, zdt1(p)));
  }
  // With mutation off, generation 2 holds only values of earlier trials.
  o.mutation_prob = 0;
  Nsga2Sampler t(3, kMinMin, o);
  for (int n = 0; n < 8; ++n)
    t.tell(complete(n, seen[static_cast<size_t>(n)], zdt1(seen[static_cast<size_t>(n)])));
  const ParamValues child = t.ask(space, 9);
  for (const auto& [name, v] : child) {
    CHECK(std::any_of(seen.begin(), seen.begin() + 8,
                      [&, &name = name, &v = v](const ParamValues& q) { return q.at(name) == v; }));
  }
}

TEST_CASE("nsga2: suggestions depend on the told history, not on the order it finished in") {
  Nsga2Options o;
  o.population_size = 5;
  Nsga2Sampler a(9, kMinMin, o), b(9, kMinMin, o);
  const SearchSpace space = cube(4);
  std::vector<TrialView> done;
  for (int n = 0; n < 15; ++n) {
    const ParamValues p = a.ask(space, n);
    done.push_back(complete(n, p, zdt1(p)));
  }
  // `a` hears of the trials in order and asks in between; `b` hears late.
  for (int n = 0; n < 15; ++n) {
    a.tell(done[static_cast<size_t>(n)]);
    a.ask(space, 15);
  }
  for (int n = 14; n >= 0; --n) b.tell(done[static_cast<size_t>(n)]);
  CHECK(a.ask(space, 16) == b.ask(space, 16));
  CHECK(a.parents(3).size() == b.parents(3).size());
}

TEST_CASE("nsga2 and multi-objective TPE beat random search on ZDT1") {
  double nsga2 = 0, tpe = 0, random = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Nsga2Options o;
    o.population_size = 20;
    Nsga2Sampler n(seed, kMinMin, o);
    MotpeSampler t(seed, kMinMin);
    RandomSampler r(seed, Direction::kMinimize);
    nsga2 += run_zdt1(n, 200);
    tpe += run_zdt1(t, 200);
    random += run_zdt1(r, 200);
  }
  CAPTURE(nsga2);
  CAPTURE(tpe);
  CAPTURE(random);
  CHECK(nsga2 > random);
  CHECK(tpe > random);
}

TEST_CASE("multi-objective TPE: the good trials are the best fronts, feasible first") {
  SplitProbe s(1, kMinMin);
  // 20 trials: the good ones are ceil(0.15 * 20) = 3.
  for (int n = 0; n < 20; ++n) {
    const double x = n / 20.0;
    std::vector<double> c = {n < 4 ? 1.0 : -1.0};  // the first four are infeasible
    s.tell(complete(n, {{"x0", x}}, {x + (n % 2), 1 - x + (n % 2)}, c));
  }
  s.ask(cube(1), 20);  // brings the rows up to date
  const TpeSplit split = s.probe();
  REQUIRE(split.below.size() == 3);
  for (int row : split.below) {
    CHECK(row % 2 == 0);  // on the front x + y = 1
    CHECK(row >= 4);  // feasible
    CHECK(split.below_weight[static_cast<size_t>(row)] > 0);
  }
  CHECK(split.above.size() == 17);
}

TEST_CASE("multi-objective TPE learns from trials told with values alone") {
  SplitProbe s(1, kMinMin);
  for (int n = 0; n < 20; ++n) {
    TrialView t = complete(n, {{"x0", n / 20.0}}, {n / 20.0, 1 - n / 20.0});
    t.value.reset();
    s.tell(t);
  }
  s.ask(cube(1), 20);
  CHECK(s.probe().n_finished == 20);
  CHECK(s.probe().below.size() == 3);
}

TEST_CASE("the multi-objective factory names the samplers and refuses what it lacks") {
  SamplerConfig c;
  for (const char* name : {"nsga2", "tpe", "random", "auto"}) {
    c.name = name;
    CHECK(make_multi_objective_sampler(c, 1, kMinMin, "s.yaml") != nullptr);
  }
  c.name = "gp";
  CHECK_THROWS_WITH_AS(make_multi_objective_sampler(c, 1, kMinMin, "s.yaml"),
                       doctest::Contains("s.yaml: sampler.name"), ConfigError);
  c.name = "nsga2";
  c.options = {{"population_size", 1}};
  CHECK_THROWS_WITH_AS(make_multi_objective_sampler(c, 1, kMinMin, "s.yaml"),
                       doctest::Contains("sampler.population_size: expected an integer"),
                       ConfigError);
  c.options = {{"populaton_size", 10}};
  CHECK_THROWS_WITH_AS(make_multi_objective_sampler(c, 1, kMinMin, "s.yaml"),
                       doctest::Contains("unknown nsga2 option 'populaton_size'"), ConfigError);
  c.name = "random";
  CHECK_THROWS_AS(make_multi_objective_sampler(c, 1, kMinMin, "s.yaml"), ConfigError);
}

}  // namespace
}  // namespace hpo
