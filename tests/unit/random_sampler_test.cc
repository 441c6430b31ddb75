#include "samplers/random_sampler.h"

#include <doctest/doctest.h>

#include <cmath>
#include <set>

namespace hpo {
namespace {

SearchSpace mission_space() {
  return {
      {"batch_size", CategoricalDistribution{{int64_t{256}, int64_t{512}, int64_t{1024}}}},
      {"grad_accum", IntDistribution{1, 4, false, 1}},
      {"lr", FloatDistribution{5e-6, 5e-3, true, std::nullopt}},
      {"dropout", FloatDistribution{0.0, 0.5, false, 0.1}},
      {"layers", IntDistribution{2, 11, false, 3}},
      {"width", IntDistribution{8, 512, true, 1}},
  };
}

TEST_CASE("random sampler stays inside every distribution") {
  RandomSampler sampler(7, Direction::kMaximize);
  const auto space = mission_space();
  for (int n = 0; n < 2000; ++n) {
    const auto values = sampler.ask(space, n);
    REQUIRE(values.size() == space.size());
    for (const auto& p : space) {
      CHECK_MESSAGE(contains(p.distribution, values.at(p.name)), p.name, " = ", values.at(p.name));
    }
  }
}

TEST_CASE("random sampler covers steps, choices and both ends of int ranges") {
  RandomSampler sampler(11, Direction::kMinimize);
  const auto space = mission_space();
  std::set<double> dropouts, layers, batches;
  for (int n = 0; n < 500; ++n) {
    const auto v = sampler.ask(space, n);
    dropouts.insert(std::round(v.at("dropout") * 10) / 10);
    layers.insert(v.at("layers"));
    batches.insert(v.at("batch_size"));
  }
  CHECK(dropouts == std::set<double>{0.0, 0.1, 0.2, 0.3, 0.4, 0.5});
  CHECK(layers == std::set<double>{2, 5, 8, 11});
  CHECK(batches == std::set<double>{0, 1, 2});
}

TEST_CASE("log-uniform draws are uniform in log space") {
  RandomSampler sampler(3, Direction::kMaximize);
  const SearchSpace space = {{"lr", FloatDistribution{1e-6, 1e-2, true, std::nullopt}}};
  // Each decade of [1e-6, 1e-2] should get about a quarter of the draws;
  // a uniform (non-log) draw would put ~90% in the top decade.
  int per_decade[4] = {0, 0, 0, 0};
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const double lr = sampler.ask(space, i).at("lr");
    const int decade = std::min(3, static_cast<int>(std::floor(std::log10(lr) + 6)));
    ++per_decade[decade];
  }
  for (int count : per_decade) {
    CHECK(count > n / 4 - 200);
    CHECK(count < n / 4 + 200);
  }
}

TEST_CASE("random sampler is reproducible from its seed and independent of ask order") {
  const auto space = mission_space();
  RandomSampler a(42, Direction::kMaximize), b(42, Direction::kMaximize),
      c(43, Direction::kMaximize);
  const auto a5 = a.ask(space, 5);
  b.ask(space, 0);
  b.ask(space, 1);
  CHECK(b.ask(space, 5) == a5);  // same seed, same trial number
  CHECK(c.ask(space, 5) != a5);  // another seed
  CHECK(a.ask(space, 6) != a5);  // another trial
}

TEST_CASE("tell records history and replaces by trial number") {
  RandomSampler sampler(1, Direction::kMaximize);
  TrialView t;
  t.number = 3;
  sampler.tell(t);
  t.state = TrialState::kComplete;
  t.value = 0.5;
  sampler.tell(t);
  REQUIRE(sampler.history().size() == 1);
  CHECK(sampler.history().at(3).state == TrialState::kComplete);
}

}  // namespace
}  // namespace hpo
