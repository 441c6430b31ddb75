// Samplers on conditional spaces: a trial holds a child exactly when its
// condition holds, and TPE learns each branch from the trials that took it.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "samplers/conditions.h"
#include "samplers/random_sampler.h"
#include "samplers/tpe_sampler.h"
#include "tests/unit/tpe_test_space.h"

namespace hpo {
namespace {

CategoricalDistribution strings(std::vector<std::string> names) {
  CategoricalDistribution d;
  for (auto& n : names) d.choices.push_back(std::move(n));
  return d;
}

// model: a | b | c; x only for a, y for b and c, z (a chain) for y's
// branch when act is relu; lr always.
SearchSpace branchy_space() {
  return {
      {"model", strings({"a", "b", "c"})},
      {"x", FloatDistribution{0.0, 1.0, false, std::nullopt},
       Condition{"model", {std::string("a")}}},
      {"act", strings({"relu", "tanh"}), Condition{"model", {std::string("b"), std::string("c")}}},
      {"z", IntDistribution{1, 9, false, 1}, Condition{"act", {std::string("relu")}}},
      {"lr", FloatDistribution{1e-4, 1e-1, true, std::nullopt}},
  };
}

// What the conditions say the trial holds, from its model and act choices.
void check_holds_exactly_its_branch(const ParamValues& v) {
  REQUIRE(v.count("model"));
  REQUIRE(v.count("lr"));
  const int model = static_cast<int>(v.at("model"));
  CHECK(v.count("x") == (model == 0 ? 1u : 0u));
  CHECK(v.count("act") == (model != 0 ? 1u : 0u));
  const bool relu = v.count("act") && v.at("act") == 0;
  CHECK(v.count("z") == (relu ? 1u : 0u));
}

// Prefers model a with x near 0.3; b and c are worse whatever y and z are.
double branchy_objective(const ParamValues& v) {
  const double lr = std::pow(std::log10(v.at("lr")) + 2, 2) * 0.1;
  if (v.at("model") == 0) return std::pow(v.at("x") - 0.3, 2) + lr;
  return 0.5 + (v.count("z") ? std::fabs(v.at("z") - 5) * 0.05 : 0.2) + lr;
}

TEST_CASE("drop_inactive settles chains in one pass") {
  const auto space = branchy_space();
  // model a: act and its child z go, even though values were drawn for them.
  const auto a =
      drop_inactive(space, {{"model", 0}, {"x", 0.5}, {"act", 0}, {"z", 3}, {"lr", 0.01}});
  CHECK(a == ParamValues{{"model", 0}, {"x", 0.5}, {"lr", 0.01}});
  const auto b =
      drop_inactive(space, {{"model", 1}, {"x", 0.5}, {"act", 0}, {"z", 3}, {"lr", 0.01}});
  CHECK(b == ParamValues{{"model", 1}, {"act", 0}, {"z", 3}, {"lr", 0.01}});
  CHECK(is_conditional(space));
  CHECK_FALSE(is_conditional({space.front()}));
}

TEST_CASE("random sampling: every trial holds a child iff its condition holds") {
  RandomSampler sampler(5, Direction::kMinimize);
  const auto space = branchy_space();
  int with_z = 0;
  for (int n = 0; n < 600; ++n) {
    const auto v = sampler.ask(space, n);
    check_holds_exactly_its_branch(v);
    with_z += static_cast<int>(v.count("z"));
  }
  // Every branch is visited: z needs model b or c, then relu (1/3 of trials).
  CHECK(with_z > 120);
  CHECK(with_z < 280);
}

TEST_CASE("TPE never emits a parameter whose condition fails, before and after start-up") {
  for (const bool multivariate : {true, false}) {
    TpeSampler tpe(9, Direction::kMinimize, default_tpe_options(multivariate));
    const auto space = branchy_space();
    for (int n = 0; n < 80; ++n) {
      const auto v = tpe.ask(space, n);
      check_holds_exactly_its_branch(v);
      tell_complete(tpe, n, v, branchy_objective(v));
    }
  }
}

TEST_CASE("TPE learns a branch's parameter from the trials that took the branch") {
  // x is held by a third of the trials; TPE must still home in on x = 0.3
  // within branch a, which a model that ignored the branch could not.
  const auto space = branchy_space();
  const auto best_of = [&](Sampler& s) {
    double best = INFINITY;
    for (int n = 0; n < 120; ++n) {
      const auto v = s.ask(space, n);
      const double y = branchy_objective(v);
      best = std::min(best, y);
      tell_complete(s, n, v, y);
    }
    return best;
  };
  double tpe_total = 0, random_total = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    TpeSampler tpe(seed, Direction::kMinimize);
    RandomSampler random(seed, Direction::kMinimize);
    tpe_total += best_of(tpe);
    random_total += best_of(random);
  }
  CHECK(tpe_total < random_total * 0.5);
}

TEST_CASE("TPE's late suggestions of a branch cluster where that branch is good") {
  TpeSampler tpe(3, Direction::kMinimize);
  const auto space = branchy_space();
  double x_error = 0;
  int x_count = 0;
  for (int n = 0; n < 150; ++n) {
    const auto v = tpe.ask(space, n);
    if (n >= 100 && v.count("x")) {
      x_error += std::fabs(v.at("x") - 0.3);
      ++x_count;
    }
    tell_complete(tpe, n, v, branchy_objective(v));
  }
  REQUIRE(x_count > 10);  // TPE mostly picks the better branch
  CHECK(x_error / x_count < 0.15);  // uniform draws would be 0.29 away on average
}

}  // namespace
}  // namespace hpo
