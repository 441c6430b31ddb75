// The space-filling startup (samplers/sobol_startup.h, startup.h): points
// that depend only on (seed, number, space), distinct, and spread over the
// space far more evenly than random draws.
#include "samplers/sobol_startup.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "samplers/auto_sampler.h"
#include "samplers/conditions.h"
#include "samplers/random_sampler.h"
#include "samplers/startup.h"
#include "tests/unit/tpe_test_space.h"

namespace hpo {
namespace {

constexpr int kPoints = 64;

std::vector<std::vector<double>> unit_points(uint64_t seed, int n, size_t dimension) {
  std::vector<std::vector<double>> out;
  for (int i = 0; i < n; ++i) out.push_back(sobol_unit_point(seed, i, dimension));
  return out;
}

// The most points any of `cells` equal cells of coordinate `j` holds, and
// the fewest.
std::pair<int, int> cell_range(const std::vector<std::vector<double>>& points, size_t j,
                               int cells) {
  std::vector<int> count(static_cast<size_t>(cells));
  for (const auto& p : points) ++count[static_cast<size_t>(std::floor(p[j] * cells))];
  return {*std::min_element(count.begin(), count.end()),
          *std::max_element(count.begin(), count.end())};
}

TEST_CASE("the same seed gives the same startup points, another seed others") {
  const SearchSpace space = mixed_space();
  for (int n : {0, 1, 7, 40}) {
    CHECK(sobol_point(space, 11, n) == sobol_point(space, 11, n));
    CHECK(sobol_point(space, 11, n) != sobol_point(space, 12, n));
  }
}

TEST_CASE("startup points are in [0, 1), distinct, and stratify every coordinate") {
  for (uint64_t seed : {0, 1, 99}) {
    const auto points = unit_points(seed, kPoints, 12);
    std::set<std::vector<double>> distinct(points.begin(), points.end());
    CHECK(distinct.size() == points.size());
    for (size_t j = 0; j < 12; ++j) {
      for (const auto& p : points) CHECK((p[j] >= 0.0 && p[j] < 1.0));
      // 64 points in 16 cells: 4 in each for a scrambled Sobol sequence;
      // 2..6 leaves a wide margin. 64 uniform draws fail it (some cell
      // holds 0-1 or 7+) with probability above 0.9 per coordinate.
      const auto [fewest, most] = cell_range(points, j, 16);
      CHECK(fewest >= 2);
      CHECK(most <= 6);
    }
  }
}

TEST_CASE("trials 0..2^k-1 put exactly one point in each of 2^k cells of every coordinate") {
  for (int k : {2, 4, 6}) {
    const auto points = unit_points(17, 1 << k, 9);
    for (size_t j = 0; j < 9; ++j) CHECK(cell_range(points, j, 1 << k) == std::make_pair(1, 1));
  }
}

TEST_CASE("pairs of coordinates are covered: no empty cell of a 4x4 grid") {
  // 64 uniform draws leave one of the 16 cells empty about 23% of the
  // time, so that over the 15 pairs below random points would fail.
  const auto points = unit_points(5, kPoints, 6);
  for (size_t a = 0; a < 6; ++a) {
    for (size_t b = a + 1; b < 6; ++b) {
      std::set<int> seen;
      for (const auto& p : points)
        seen.insert(static_cast<int>(p[a] * 4) * 4 + static_cast<int>(p[b] * 4));
      CHECK(seen.size() == 16);
    }
  }
}

TEST_CASE("startup points map to each distribution: log, grid, int and choices") {
  const SearchSpace space = mixed_space();
  std::vector<int> decades(4), activations(3);
  std::set<double> widths;
  for (int n = 0; n < kPoints; ++n) {
    const ParamValues v = sobol_point(space, 3, n);
    for (const auto& p : space) CHECK(contains(p.distribution, v.at(p.name)));
    // lr is log-uniform over 1e-5..1e-1: each decade gets a quarter.
    ++decades[static_cast<size_t>(std::min(3.0, std::floor(std::log10(v.at("lr")) + 5)))];
    ++activations[static_cast<size_t>(v.at("activation"))];
    widths.insert(v.at("width"));
  }
  for (int d : decades) CHECK((d >= 12 && d <= 20));
  for (int a : activations) CHECK((a >= 18 && a <= 25));
  CHECK(widths.size() > 20);
}

TEST_CASE("TPE and the GP share their startup points; `startup: random` keeps the old draws") {
  const SearchSpace space = mixed_space();
  TpeSampler tpe(4, Direction::kMinimize);
  GpSampler gp(4, Direction::kMinimize);
  RandomSampler random(4, Direction::kMinimize);
  TpeOptions old;
  old.startup = StartupKind::kRandom;
  TpeSampler tpe_random(4, Direction::kMinimize, old);
  for (int n = 0; n < 10; ++n) {
    const ParamValues expected = sobol_point(space, 4, n);
    CHECK(tpe.ask(space, n) == expected);
    CHECK(gp.ask(space, n) == expected);
    CHECK(tpe_random.ask(space, n) == random.ask(space, n));
  }
}

TEST_CASE("a trial's startup point does not depend on the trials before it") {
  // Parallel workers and a resumed study ask for trial 7 with other
  // histories: the point is the same.
  const SearchSpace space = mixed_space();
  TpeSampler fresh(9, Direction::kMinimize);
  TpeSampler told(9, Direction::kMinimize);
  for (int n = 0; n < 5; ++n) tell_complete(told, n, told.ask(space, n), n);
  CHECK(fresh.ask(space, 7) == told.ask(space, 7));
}

TEST_CASE("the startup count fits the budget and the dimension") {
  CHECK(auto_startup_trials(0, 5) == 10);  // unknown budget: as before
  CHECK(auto_startup_trials(5, 6) == 3);
  CHECK(auto_startup_trials(10, 1) == 2);
  CHECK(auto_startup_trials(20, 6) == 5);
  CHECK(auto_startup_trials(1000, 6) == 10);
  for (int budget : {5, 10, 20, 50, 100}) CHECK(auto_startup_trials(budget, 8) <= budget);
}

TEST_CASE("auto plans the GP for a small numeric space and TPE for a categorical or wide one") {
  const AutoPlan numeric = auto_plan(mixed_space());
  CHECK(numeric.gp_before > 0);
  CHECK(numeric.why.find("gp") == 0);
  SearchSpace categorical;
  for (const char* name : {"a", "b", "c"})
    categorical.push_back({name, choices({std::string("x"), std::string("y")})});
  categorical.push_back({"lr", FloatDistribution{1e-5, 1e-1, true, std::nullopt}});
  CHECK(auto_plan(categorical).gp_before == 0);
  CHECK(auto_plan(categorical).why.find("categorical") != std::string::npos);
  SearchSpace wide;
  for (int i = 0; i < 40; ++i)
    wide.push_back({"x" + std::to_string(i), FloatDistribution{0, 1, false, std::nullopt}});
  CHECK(auto_plan(wide).gp_before == 0);
}

TEST_CASE("auto answers as the GP before its switch and as TPE after, from the same history") {
  const SearchSpace space = mixed_space();
  AutoThresholds early;
  early.gp_trials = 12;
  TpeOptions tpe_options;
  tpe_options.n_startup_trials = 5;
  GpOptions gp_options;
  gp_options.n_startup_trials = 5;
  AutoSampler a(2, Direction::kMinimize, tpe_options, gp_options, early);
  GpSampler gp(2, Direction::kMinimize, gp_options);
  TpeSampler tpe(2, Direction::kMinimize, tpe_options);
  for (int n = 0; n < 14; ++n) {
    const ParamValues v = a.ask(space, n);
    CHECK(v == (n < 12 ? gp.ask(space, n) : tpe.ask(space, n)));
    for (Sampler* s : std::initializer_list<Sampler*>{&a, &gp, &tpe})
      tell_complete(*s, n, v, mixed_objective(v));
  }
}

}  // namespace
}  // namespace hpo

namespace hpo {
namespace {

TEST_CASE("a mostly conditional space starts with the random sampler's draws") {
  const Condition when_net{"model", {ParamValue{std::string("net")}}};
  const SearchSpace space = {{"model", choices({std::string("net"), std::string("tree")})},
                             {"width", IntDistribution{8, 512, true, 1}, when_net},
                             {"layers", IntDistribution{1, 6, false, 1}, when_net}};
  TpeSampler tpe(6, Direction::kMinimize);
  RandomSampler random(6, Direction::kMinimize);
  for (int n = 0; n < 5; ++n) CHECK(tpe.ask(space, n) == random.ask(space, n));
  // One conditional parameter of four: Sobol points, the inactive ones left out.
  SearchSpace light = space;
  light.erase(light.begin() + 2);
  light.push_back({"lr", FloatDistribution{1e-5, 1e-1, true, std::nullopt}});
  light.push_back({"dropout", FloatDistribution{0.0, 0.5, false, std::nullopt}});
  CHECK(tpe.ask(light, 3) == drop_inactive(light, sobol_point(light, 6, 3)));
}

}  // namespace
}  // namespace hpo
