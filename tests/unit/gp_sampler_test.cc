#include "samplers/gp_sampler.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "samplers/random_sampler.h"
#include "samplers/sobol_startup.h"
#include "tests/unit/tpe_test_space.h"

namespace hpo {
namespace {

using Function = std::function<double(const ParamValues&)>;

SearchSpace unit_square() {
  return {{"x", FloatDistribution{0, 1, false, std::nullopt}},
          {"y", FloatDistribution{0, 1, false, std::nullopt}}};
}

// Branin on [-5, 10] x [0, 15], scaled from the unit square; minimum 0.397887.
double branin(const ParamValues& v) {
  const double x = -5 + 15 * v.at("x"), y = 15 * v.at("y");
  const double b = 5.1 / (4 * M_PI * M_PI), c = 5 / M_PI, t = 1 / (8 * M_PI);
  return std::pow(y - b * x * x + c * x - 6, 2) + 10 * (1 - t) * std::cos(x) + 10;
}

double run(Sampler& s, const SearchSpace& space, const Function& f, int trials) {
  return run_minimizing(s, space, f, trials);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST_CASE("gp: beats random search on Branin over many seeds (median regret)") {
  // 20 trials, the first 10 random; 30 seeds. When written, GP's median
  // regret was 0.39 against random's 1.67 (4.3x); the test asks for 2x.
  std::vector<double> gp, random;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    GpSampler g(seed, Direction::kMinimize);
    RandomSampler r(seed, Direction::kMinimize);
    gp.push_back(run(g, unit_square(), branin, 20) - 0.397887);
    random.push_back(run(r, unit_square(), branin, 20) - 0.397887);
  }
  CAPTURE(median(gp));
  CAPTURE(median(random));
  CHECK(median(gp) * 2 < median(random));
}

TEST_CASE("gp: the same seed and history give the same suggestions") {
  GpSampler a(7, Direction::kMinimize), b(7, Direction::kMinimize), c(8, Direction::kMinimize);
  GpOptions fast;
  fast.n_startup_trials = 3;
  GpSampler d(7, Direction::kMinimize, fast), e(7, Direction::kMinimize, fast);
  const auto space = mixed_space();
  run(d, space, mixed_objective, 8);
  run(e, space, mixed_objective, 8);
  CHECK(d.ask(space, 8) == e.ask(space, 8));
  CHECK(a.ask(space, 0) == b.ask(space, 0));
  CHECK(a.ask(space, 0) != c.ask(space, 0));
}

TEST_CASE("gp: past the fit schedule's first step, a resumed study gets the same suggestions") {
  // The uninterrupted sampler recalls its last kernel fit; the resumed one,
  // told the history in one go, must compute the same. An early trial told
  // again with another value changes the fit's input: a memo keyed by less
  // than the whole input would answer with the stale fit.
  const auto space = unit_square();
  const int n = static_cast<int>(kFitAllRows) + 20;
  GpSampler uninterrupted(3, Direction::kMinimize);
  run(uninterrupted, space, branin, n);
  for (const bool retold : {false, true}) {
    if (retold) tell_complete(uninterrupted, 5, uninterrupted.history().at(5).params, 300.0);
    GpSampler resumed(3, Direction::kMinimize);
    for (const auto& [number, trial] : uninterrupted.history()) resumed.tell(trial);
    CAPTURE(retold);
    const auto expected = resumed.ask(space, n);
    CHECK(uninterrupted.ask(space, n) == expected);
  }
}

TEST_CASE("gp: the fit sees every row up to the threshold, then steps by at most a quarter") {
  for (Eigen::Index n = 0; n <= kFitAllRows; ++n) CHECK(fitted_rows(n) == n);
  Eigen::Index last = kFitAllRows;
  for (Eigen::Index n = kFitAllRows + 1; n < 2000; ++n) {
    const Eigen::Index m = fitted_rows(n);
    CHECK(m <= n);
    CHECK(m >= last);
    CHECK(4 * n < 5 * m + 5);  // at least ~4/5 of the rows
    last = m;
  }
}

TEST_CASE(
    "gp: suggestions after the startup lie in the space, mixed and ordered choices included") {
  GpOptions options;
  options.n_startup_trials = 4;
  GpSampler s(3, Direction::kMinimize, options);
  const auto space = mixed_space();
  for (int n = 0; n < 12; ++n) {
    const auto v = s.ask(space, n);
    for (const auto& p : space) CHECK(contains(p.distribution, v.at(p.name)));
    tell_complete(s, n, v, mixed_objective(v));
  }
}

TEST_CASE("gp: a wide int range is searched as continuous and rounded, not stored point by point") {
  const SearchSpace space = {
      {"seed", IntDistribution{0, 2000000000, false, 1}},
      {"size", IntDistribution{1, 1000000, true, 1}},
      {"x", FloatDistribution{0, 1, false, 0.000001}},
  };
  GpOptions options;
  options.n_startup_trials = 3;
  GpSampler s(4, Direction::kMinimize, options);
  const auto f = [](const ParamValues& v) {
    return std::abs(v.at("seed") - 1e9) / 1e9 + std::abs(std::log(v.at("size")) - 5) + v.at("x");
  };
  for (int n = 0; n < 8; ++n) {
    const auto v = s.ask(space, n);
    for (const auto& p : space) CHECK(contains(p.distribution, v.at(p.name)));
    tell_complete(s, n, v, f(v));
  }
}

TEST_CASE("gp: repeated points with different values, deterministic or not, still give a point") {
  // A trainer re-run with the same parameters scores differently; with
  // deterministic: true the kernel matrix is then nearly singular.
  for (const bool deterministic : {false, true}) {
    GpOptions options;
    options.deterministic = deterministic;
    options.n_startup_trials = 2;
    GpSampler s(9, Direction::kMaximize, options);
    for (int n = 0; n < 12; ++n)
      tell_complete(s, n, {{"x", 0.25}, {"y", 0.75}}, n % 3 == 0 ? 1.0 : 0.0);
    const auto v = s.ask(unit_square(), 12);
    CAPTURE(deterministic);
    CHECK(contains(FloatDistribution{0, 1, false, std::nullopt}, v.at("x")));
    CHECK(contains(FloatDistribution{0, 1, false, std::nullopt}, v.at("y")));
  }
}

TrialView running(int number, const ParamValues& v) {
  TrialView t;
  t.number = number;
  t.state = TrialState::kRunning;
  t.params = v;
  return t;
}

TEST_CASE("gp: parallel workers get distinct points: running trials enter as fantasies") {
  // Ten finished trials, then eight workers ask one after another while
  // the earlier ones still run.
  for (const bool deterministic : {false, true}) {
    GpOptions options;
    options.deterministic = deterministic;
    GpSampler s(11, Direction::kMinimize, options);
    run(s, unit_square(), branin, 10);
    std::vector<ParamValues> asked;
    for (int n = 10; n < 18; ++n) {
      asked.push_back(s.ask(unit_square(), n));
      s.tell(running(n, asked.back()));
    }
    double closest = INFINITY;
    for (size_t i = 0; i < asked.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        closest = std::min(closest, std::hypot(asked[i].at("x") - asked[j].at("x"),
                                               asked[i].at("y") - asked[j].at("y")));
      }
    }
    CAPTURE(deterministic);
    CHECK(closest > 0.01);
  }
}

TEST_CASE("gp: without fantasies, the same history gives workers the same point") {
  // The contrast to the test above: what the fantasies prevent.
  GpSampler s(11, Direction::kMinimize);
  run(s, unit_square(), branin, 10);
  const auto first = s.ask(unit_square(), 10);
  s.tell(running(10, {}));  // running, but without params: nothing to believe
  const auto second = s.ask(unit_square(), 10);
  CHECK(first == second);
}

TEST_CASE("gp: pruned trials count as the worst, plain failures are ignored") {
  GpOptions options;
  options.n_startup_trials = 2;
  const auto space = unit_square();
  GpSampler s(5, Direction::kMaximize, options), plain(5, Direction::kMaximize, options);
  RandomSampler random(5, Direction::kMaximize);
  for (Sampler* sampler : {static_cast<Sampler*>(&s), static_cast<Sampler*>(&plain)})
    tell_complete(*sampler, 0, {{"x", 0.5}, {"y", 0.5}}, 1.0);
  CHECK(s.ask(space, 3) == sobol_point(space, 5, 3));  // below the startup: its points
  for (Sampler* sampler : {static_cast<Sampler*>(&s), static_cast<Sampler*>(&plain)})
    tell_complete(*sampler, 1, {{"x", 0.1}, {"y", 0.1}}, 0.2);
  TrialView failed;
  failed.number = 2;
  failed.state = TrialState::kFail;
  failed.params = {{"x", 0.9}, {"y", 0.9}};
  s.tell(failed);
  const auto without = plain.ask(space, 3);
  CHECK(without != random.ask(space, 3));  // two observations: the GP runs
  CHECK(s.ask(space, 3) == without);  // the failure changes nothing
  TrialView pruned = failed;
  pruned.state = TrialState::kPruned;
  pruned.intermediate = {{1, 50.0}};  // a high early value: still counted as the worst
  s.tell(pruned);
  const auto v = s.ask(space, 3);
  CHECK(v != without);  // the pruned trial counts
  CHECK(std::hypot(v.at("x") - 0.9, v.at("y") - 0.9) > 0.1);
}

TEST_CASE("gp: conditional parameters are drawn at random and dropped when inactive") {
  SearchSpace space = {
      {"model", choices({std::string("mlp"), std::string("tcn")})},
      {"lr", FloatDistribution{1e-4, 1e-1, true, std::nullopt}},
      {"kernel", IntDistribution{2, 7, false, 1}, Condition{"model", {std::string("tcn")}}},
  };
  GpOptions options;
  options.n_startup_trials = 3;
  GpSampler s(2, Direction::kMinimize, options);
  int with_kernel = 0;
  for (int n = 0; n < 10; ++n) {
    const auto v = s.ask(space, n);
    CHECK(v.count("kernel") == (v.at("model") == 1 ? 1u : 0u));
    with_kernel += static_cast<int>(v.count("kernel"));
    tell_complete(s, n, v, std::log10(v.at("lr")) + 2 * v.at("model"));
  }
  CHECK(with_kernel < 10);
}

}  // namespace
}  // namespace hpo
