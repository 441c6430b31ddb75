#include "hpo/report/pareto_view.h"

#include <doctest/doctest.h>

#include <limits>
#include <random>
#include <sstream>

#include "hpo/report/trial_json.h"
#include "hpo/run/objectives.h"
#include "two_objective_study.h"

namespace hpo {
namespace {

std::vector<int> front_numbers(const std::vector<const TrialRecord*>& trials) {
  std::vector<int> out;
  for (const auto* t : trials) out.push_back(t->number);
  return out;
}

// Trials 0, 1, 2 are the front; 3 is dominated by 1. Scaled over the front
// with 0 the best: 0 -> (0, 1), 1 -> (0.25, 0.3), 2 -> (1, 0).
const std::vector<std::pair<double, double>> kKnown = {
    {1.0, 1.0}, {0.8, 0.3}, {0.2, 0.0}, {0.5, 0.5}};

TEST_CASE("the Pareto front of a known study, and its knee") {
  const StudyView view = two_objective_study(kKnown);
  const auto front = pareto_trials(view);
  CHECK(front_numbers(front) == std::vector<int>{0, 1, 2});
  const auto scaled = normalized_losses(view, front);
  CHECK(scaled[1][0] == doctest::Approx(0.25));
  CHECK(scaled[1][1] == doctest::Approx(0.3));
  CHECK(pick_knee(view, front).trial->number == 1);
}

TEST_CASE("weights pick the trial of the front with the smallest weighted scaled loss") {
  const StudyView view = two_objective_study(kKnown);
  const auto front = pareto_trials(view);
  CHECK(pick_weighted(view, front, {0.9, 0.1}).trial->number == 0);
  CHECK(pick_weighted(view, front, {0.1, 0.9}).trial->number == 2);
  CHECK(pick_weighted(view, front, {0.5, 0.5}).trial->number == 1);
  CHECK(pick_weighted(view, front, {1, 0}).trial->number == 0);
  CHECK(pick_weighted(view, front, {0.7, 0.3}).why.find("a 0.7, b 0.3") != std::string::npos);
}

TEST_CASE("infinite objectives scale beyond the finite ones, and the picks stay on them") {
  const double inf = std::numeric_limits<double>::infinity();
  // The review's study: maximize a, minimize b; trial 3 has b = -inf.
  const StudyView view =
      two_objective_study({{0.1, 0.5}, {0.05, 0.2}, {0.08, 0.3}, {0.02, -inf}, {0.12, 0.9}});
  const auto front = pareto_trials(view);
  CHECK(pick_weighted(view, front, {1, 0}).trial->number == 4);  // was 0: NaN sums
  CHECK(pick_weighted(view, front, {0, 1}).trial->number == 3);
  CHECK(pick_knee(view, front).why.find("nan") == std::string::npos);
  // Any front with infinities: every scaled value is in [0, 1], the order of
  // each objective is kept strictly, and a weight on one objective picks a
  // trial best on it.
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> kind(0, 5);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::pair<double, double>> points;
    const auto draw = [&] {
      const int k = kind(rng);
      return k == 0 ? inf : k == 1 ? -inf : std::uniform_real_distribution<double>(-1, 1)(rng);
    };
    for (int i = 0; i < 6; ++i) points.push_back({draw(), draw()});
    const StudyView v = two_objective_study(points);
    const auto f = pareto_trials(v);
    const auto scaled = normalized_losses(v, f);
    for (size_t k = 0; k < 2; ++k) {
      for (size_t i = 0; i < f.size(); ++i) {
        CHECK((scaled[i][k] >= 0 && scaled[i][k] <= 1));
        for (size_t j = 0; j < f.size(); ++j) {
          const double li = k == 0 ? -f[i]->values[0] : f[i]->values[1];
          const double lj = k == 0 ? -f[j]->values[0] : f[j]->values[1];
          if (li < lj) CHECK(scaled[i][k] < scaled[j][k]);
        }
      }
    }
    if (f.empty()) continue;
    const TrialRecord* best_a = pick_weighted(v, f, {1, 0}).trial;
    for (const auto* t : f) CHECK(best_a->values[0] >= t->values[0]);
    const TrialRecord* best_b = pick_weighted(v, f, {0, 1}).trial;
    for (const auto* t : f) CHECK(best_b->values[1] <= t->values[1]);
  }
}

TEST_CASE("with constraints, the front is the feasible trials' (none when none is)") {
  // Trial 4 would dominate every other but violates its constraint.
  auto points = kKnown;
  points.push_back({1.2, 0.1});
  const StudyView view = two_objective_study(points, {{-1}, {0}, {-0.5}, {-1}, {0.1}});
  CHECK(front_numbers(pareto_trials(view)) == std::vector<int>{0, 1, 2});
  CHECK_FALSE(trial_feasible(view.trials[4]));
  CHECK(trial_feasible(view.trials[1]));  // 0 holds, as Optuna's <= 0
  const StudyView none = two_objective_study({{1, 1}, {2, 2}}, {{1}, {2}});
  CHECK(pareto_trials(none).empty());
}

TEST_CASE("constraint values: value - max and min - value, <= 0 when the bound holds") {
  const std::vector<ConstraintConfig> constraints = {{"turnover", std::nullopt, 0.4},
                                                     {"sharpe", 0.5, 2.0}};
  const auto held = constraint_values(constraints, {{"turnover", 0.3}, {"sharpe", 1.0}});
  REQUIRE(held);
  CHECK((*held)[0] == doctest::Approx(-0.1));
  CHECK((*held)[1] == doctest::Approx(-0.5));
  CHECK((*held)[2] == doctest::Approx(-1.0));
  const auto broken = constraint_values(constraints, {{"turnover", 0.5}, {"sharpe", 0.4}});
  CHECK((*broken)[0] > 0);
  CHECK((*broken)[1] > 0);
  CHECK_FALSE(constraint_values(constraints, {{"turnover", 0.5}}));
}

TEST_CASE("goal values name a missing objective or constraint metric") {
  const Goals goals{{{"ic", Direction::kMaximize}, {"turnover", Direction::kMinimize}},
                    {{"turnover", std::nullopt, 0.4}}};
  const auto ok = goal_values(goals, {{"ic", 0.05}, {"turnover", 0.2}});
  CHECK(ok.problem.empty());
  CHECK(ok.values == std::vector<double>{0.05, 0.2});
  CHECK(ok.constraints.size() == 1);
  CHECK(goal_values(goals, {{"ic", 0.05}}).problem.find("'turnover'") != std::string::npos);
  const Goals one{{{"ic", Direction::kMaximize}}, {}};
  CHECK(goal_values(one, {{"ic", 0.05}}).values.empty());  // value alone, as before
}

// One CSV row's cells (the rows here hold no quoted fields).
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) out.push_back(cell);
  return out;
}

TEST_CASE("the CSV of a study with several objectives: a column per objective and the front") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::pair<double, double>> points;
  for (int i = 0; i < 40; ++i) points.push_back({u(rng), u(rng)});
  const StudyView view = two_objective_study(points);
  std::stringstream csv(trials_csv(view));
  std::string line;
  std::getline(csv, line);
  const auto header = cells(line);
  REQUIRE(header.size() >= 5);
  CHECK(header[2] == "a");
  CHECK(header[3] == "b");
  CHECK(header[4] == "pareto");
  for (const auto& [a, b] : points) {
    REQUIRE(std::getline(csv, line));
    const auto row = cells(line);
    CHECK(std::stod(row[2]) == doctest::Approx(a));
    CHECK(std::stod(row[3]) == doctest::Approx(b));
    // On the front when no other point is as good in both (a maximized, b
    // minimized) and better in one: brute force, not the library's sort.
    bool dominated = false;
    for (const auto& [a2, b2] : points)
      dominated = dominated || (a2 >= a && b2 <= b && (a2 > a || b2 < b));
    CHECK(row[4] == (dominated ? "0" : "1"));
  }
}

}  // namespace
}  // namespace hpo
