#include "samplers/tpe_split.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "samplers/pareto.h"
#include "samplers/tpe_groups.h"

namespace hpo {
namespace {

TrialView split_trial(int number, TrialState state, std::optional<double> value = std::nullopt,
                      std::map<int, double> intermediate = {}) {
  TrialView t;
  t.number = number;
  t.state = state;
  t.value = value;
  t.intermediate = std::move(intermediate);
  return t;
}

std::map<int, TrialView> history(std::vector<TrialView> trials) {
  std::map<int, TrialView> h;
  for (auto& t : trials) h[t.number] = t;
  return h;
}

TEST_CASE("gamma: ceil(0.1 n), at most 25, as in Optuna") {
  CHECK(n_below(10, 0.1) == 1);
  CHECK(n_below(11, 0.1) == 2);
  CHECK(n_below(30, 0.1) == 3);
  CHECK(n_below(31, 0.1) == 4);
  CHECK(n_below(1000, 0.1) == 25);
  CHECK(n_below(40, 0.25) == 10);
}

TEST_CASE("the square-root split: ceil(beta sqrt(n)), at most 25") {
  CHECK(n_below(16, 0.25, TpeSplitRule::kSqrt) == 1);
  CHECK(n_below(17, 0.25, TpeSplitRule::kSqrt) == 2);
  CHECK(n_below(100, 1.0, TpeSplitRule::kSqrt) == 10);
  CHECK(n_below(10000, 1.0, TpeSplitRule::kSqrt) == 25);
  // The split uses the rule: 9 finished, ceil(1 * 3) = 3 below.
  std::vector<TrialView> trials;
  for (int i = 0; i < 9; ++i) trials.push_back(split_trial(i, TrialState::kComplete, 9.0 - i));
  const auto s =
      split_trials(history(trials), Direction::kMinimize, false, 1.0, TpeSplitRule::kSqrt);
  CHECK(s.below == std::vector<int>{6, 7, 8});
}

TEST_CASE("losses and the threshold, for the expected-improvement weights") {
  // Maximizing: losses are negated values; the threshold is the loss of the
  // best trial left in "above".
  const auto h = history(
      {split_trial(0, TrialState::kComplete, 3.0), split_trial(1, TrialState::kComplete, 1.0),
       split_trial(2, TrialState::kComplete, 2.0), split_trial(3, TrialState::kRunning)});
  const auto s = split_trials(h, Direction::kMaximize, true, 0.3);
  REQUIRE(s.below == std::vector<int>{0});
  CHECK(s.loss[0] == -3.0);
  CHECK(s.loss[1] == -1.0);
  CHECK(std::isnan(s.loss[3]));
  CHECK(s.threshold == -2.0);
  // Everything below: no threshold.
  CHECK(std::isnan(split_trials(h, Direction::kMaximize, false, 1.0).threshold));
  // The best of "above" is running: no threshold either.
  const auto only_running =
      history({split_trial(0, TrialState::kComplete, 1.0), split_trial(1, TrialState::kRunning)});
  CHECK(std::isnan(split_trials(only_running, Direction::kMinimize, true, 0.5).threshold));
}

TEST_CASE("complete trials rank by value, in the study's direction") {
  const auto h = history(
      {split_trial(0, TrialState::kComplete, 3.0), split_trial(1, TrialState::kComplete, 1.0),
       split_trial(2, TrialState::kComplete, 2.0), split_trial(3, TrialState::kFail),
       split_trial(4, TrialState::kComplete)});
  const auto min = split_trials(h, Direction::kMinimize, true, 0.5);
  CHECK(min.trials.size() == 3);  // FAIL and the one without a value do not count
  CHECK(min.n_finished == 3);
  CHECK(min.below == std::vector<int>{1, 2});  // ceil(1.5) = 2, in trial order
  CHECK(min.above == std::vector<int>{0});
  const auto max = split_trials(h, Direction::kMaximize, true, 0.5);
  CHECK(max.below == std::vector<int>{0, 2});
}

TEST_CASE("pruned trials rank after complete ones: later step first, then value") {
  const auto h = history({
      split_trial(0, TrialState::kPruned, std::nullopt, {{1, 0.1}, {5, 0.9}}),  // step 5, 0.9
      split_trial(1, TrialState::kPruned, std::nullopt, {{2, 0.0}}),  // step 2
      split_trial(2, TrialState::kPruned, std::nullopt, {{5, 0.5}}),  // step 5, 0.5
      split_trial(3, TrialState::kPruned),  // nothing reported
      split_trial(4, TrialState::kComplete, 100.0),
      split_trial(5, TrialState::kPruned, std::nullopt, {{5, NAN}}),  // step 5, NaN
      split_trial(6, TrialState::kRunning),
  });
  // Expected rank: 4, 2, 0, 5, 1, 3, then the running one (liar).
  const std::vector<std::vector<int>> below_by_size = {
      {4}, {2, 4}, {0, 2, 4}, {0, 2, 4, 5}, {0, 1, 2, 4, 5}, {0, 1, 2, 3, 4, 5}};
  for (int k = 1; k <= 6; ++k) {
    const auto s = split_trials(h, Direction::kMinimize, true, k / 6.0);
    CHECK(s.n_finished == 6);
    CHECK(s.trials.size() == 7);
    CHECK(s.below == below_by_size[static_cast<size_t>(k - 1)]);
    CHECK(s.above.back() == 6);  // the running trial is always above
  }
}

TEST_CASE("out-of-memory failures rank worst; other failures are left out") {
  auto oom = split_trial(2, TrialState::kFail);
  oom.infeasible = true;
  const auto h =
      history({split_trial(0, TrialState::kComplete, 5.0),
               split_trial(1, TrialState::kComplete, 1.0), oom, split_trial(3, TrialState::kFail)});
  const auto s = split_trials(h, Direction::kMaximize, false, 1.0 / 3);
  CHECK(s.trials.size() == 3);  // the plain FAIL teaches nothing
  CHECK(s.n_finished == 3);
  CHECK(s.below == std::vector<int>{0});  // the best COMPLETE one
  CHECK(s.above == std::vector<int>{1, 2});  // the OOM is among the worst
  // Even below a COMPLETE trial with the worst possible value.
  const auto h2 = history({split_trial(0, TrialState::kComplete, -1e300), oom});
  CHECK(split_trials(h2, Direction::kMaximize, false, 0.5).below == std::vector<int>{0});
}

TEST_CASE("without the constant liar, running trials are left out") {
  const auto h =
      history({split_trial(0, TrialState::kComplete, 1.0), split_trial(1, TrialState::kRunning)});
  CHECK(split_trials(h, Direction::kMinimize, false, 0.1).trials.size() == 1);
  CHECK(split_trials(h, Direction::kMinimize, true, 0.1).trials.size() == 2);
}

TEST_CASE("group decomposition: parameters that always occur together") {
  // a, b always together; c sometimes; d never with c.
  const Presence present = {
      {true, true, true, false}, {true, true, false, true}, {true, true, false, false}};
  CHECK(decompose_groups(4, present) == ParamGroups{{0, 1}, {2}, {3}});
  CHECK(decompose_groups(3, {{true, true, true}}) == ParamGroups{{0, 1, 2}});
  CHECK(decompose_groups(2, {}) == ParamGroups{{0, 1}});
  CHECK(intersection_groups(4, present) == ParamGroups{{0, 1}, {2}, {3}});
  CHECK(intersection_groups(3, {{true, false, true}, {true, true, true}}) ==
        ParamGroups{{0, 2}, {1}});
}

TEST_CASE(
    "trials that broke their constraints rank after complete and pruned ones, least violation "
    "first") {
  auto broke = [](int number, TrialState state, std::optional<double> value,
                  std::vector<double> constraints) {
    TrialView t = split_trial(
        number, state, value,
        state == TrialState::kPruned ? std::map<int, double>{{3, 0.0}} : std::map<int, double>{});
    t.constraints = std::move(constraints);
    return t;
  };
  const auto h = history({
      broke(0, TrialState::kComplete, 100.0, {0.5}),  // the best value, infeasible (0.5)
      broke(1, TrialState::kComplete, 1.0, {-1.0}),  // feasible
      broke(2, TrialState::kComplete, 2.0, {0.0}),  // feasible: 0 is allowed
      broke(3, TrialState::kComplete, 99.0, {0.1, -5.0}),  // infeasible (0.1)
      broke(4, TrialState::kPruned, std::nullopt, {}),
      broke(5, TrialState::kComplete, 50.0, {0.2, 0.2}),  // infeasible (0.4)
  });
  // Maximizing: 2, 1, then the pruned 4, then 3 (0.1), 5 (0.4), 0 (0.5).
  const std::vector<std::vector<int>> below_by_size = {
      {2}, {1, 2}, {1, 2, 4}, {1, 2, 3, 4}, {1, 2, 3, 4, 5}, {0, 1, 2, 3, 4, 5}};
  for (int k = 1; k <= 6; ++k) {
    const auto s = split_trials(h, Direction::kMaximize, false, k / 6.0);
    CHECK(s.n_finished == 6);
    CHECK(s.below == below_by_size[static_cast<size_t>(k - 1)]);
  }
}

TEST_CASE("a feasible trial is never above an infeasible one in the split") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int round = 0; round < 200; ++round) {
    std::vector<TrialView> trials;
    const int n = 5 + round % 40;
    for (int i = 0; i < n; ++i) {
      TrialView t = split_trial(i, TrialState::kComplete, u(rng));
      t.constraints = {u(rng), u(rng)};
      trials.push_back(t);
    }
    const auto h = history(trials);  // s.trials points into it
    const auto s = split_trials(h, Direction::kMinimize, false, 0.25);
    double worst_below_violation = 0, best_above_violation = 1e9;
    bool feasible_above = false, infeasible_below = false;
    for (int i : s.below) {
      const double v = violation(s.trials[static_cast<size_t>(i)]->constraints);
      worst_below_violation = std::max(worst_below_violation, v);
      infeasible_below = infeasible_below || v > 0;
    }
    for (int i : s.above) {
      const double v = violation(s.trials[static_cast<size_t>(i)]->constraints);
      if (v > 0) best_above_violation = std::min(best_above_violation, v);
      feasible_above = feasible_above || v == 0;
    }
    CHECK_FALSE((feasible_above && infeasible_below));
    if (infeasible_below) CHECK(worst_below_violation <= best_above_violation);
  }
}

}  // namespace
}  // namespace hpo
