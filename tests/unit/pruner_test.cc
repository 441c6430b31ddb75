#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "pruners/hyperband_pruner.h"
#include "pruners/percentile_pruner.h"
#include "pruners/successive_halving_pruner.h"

namespace hpo {
namespace {

PrunerTrial complete(int number, std::map<int, double> curve) {
  return {number, TrialState::kComplete, std::move(curve), {}};
}

PrunerTrial running(int number, std::map<int, double> curve) {
  return {number, TrialState::kRunning, std::move(curve), {}};
}

TEST_CASE("nan_percentile interpolates linearly and ignores NaN, as numpy") {
  // numpy.nanpercentile([1, 2, 3, 4], 25) == 1.75; ([1, nan, 3], 50) == 2.0
  CHECK(nan_percentile({4, 1, 3, 2}, 25) == doctest::Approx(1.75));
  CHECK(nan_percentile({1, NAN, 3}, 50) == doctest::Approx(2.0));
  CHECK(nan_percentile({5}, 90) == 5);
  CHECK(std::isnan(nan_percentile({NAN}, 50)));
}

TEST_CASE("the median pruner compares the best value so far with the median at the step") {
  PrunerStudy study{"s",
                    Direction::kMaximize,
                    {complete(0, {{0, 1.0}, {1, 2.0}}), complete(1, {{0, 3.0}, {1, 4.0}}),
                     complete(2, {{0, 5.0}, {1, 6.0}})}};
  PercentilePruner median(PercentileOptions{50, 3, 0, 1, 1}, "median");
  CHECK_FALSE(median.decide(study, running(3, {{0, 3.5}})).prune);  // 3.5 >= median 3
  CHECK(median.decide(study, running(3, {{0, 2.5}})).prune);  // 2.5 < 3
  // The best over steps counts, not the last value: 3.5 at step 0 still beats 3.
  CHECK_FALSE(median.decide(study, running(3, {{0, 4.5}, {1, 1.0}})).prune);
  study.direction = Direction::kMinimize;
  CHECK(median.decide(study, running(3, {{0, 3.5}})).prune);
}

TEST_CASE("startup trials, warm-up steps and intervals hold the median pruner back") {
  PrunerStudy study{"s", Direction::kMaximize, {complete(0, {{0, 5}, {1, 5}, {2, 5}, {3, 5}})}};
  const auto bad = running(1, {{0, 0}, {1, 0}, {2, 0}, {3, 0}});
  CHECK_FALSE(PercentilePruner(PercentileOptions{50, 2, 0, 1, 1})
                  .decide(study, bad)
                  .prune);  // 1 < 2 startup
  CHECK(PercentilePruner(PercentileOptions{50, 1, 0, 1, 1}).decide(study, bad).prune);
  CHECK_FALSE(PercentilePruner(PercentileOptions{50, 1, 4, 1, 1})
                  .decide(study, bad)
                  .prune);  // step 3 < warm-up 4
  // Interval 2 from warm-up 0: step 3's interval [2, 3] was already checked at step 2.
  CHECK_FALSE(PercentilePruner(PercentileOptions{50, 1, 0, 2, 1}).decide(study, bad).prune);
  // An all-NaN curve is pruned once checks begin.
  CHECK(PercentilePruner(PercentileOptions{50, 1, 0, 1, 1})
            .decide(study, running(1, {{0, NAN}}))
            .prune);
}

TEST_CASE("successive halving records rungs and keeps the top 1/rf") {
  SuccessiveHalvingPruner sha(SuccessiveHalvingOptions{1, 2, 0, 0});
  PrunerStudy study{"s", Direction::kMaximize, {}};
  // Trial 0 alone at rung 0 (step 1): promoted; its rung values are returned to store.
  PrunerTrial t0 = running(0, {{0, 0.5}, {1, 0.5}});
  study.trials = {t0};
  auto d = sha.decide(study, t0);
  CHECK_FALSE(d.prune);
  CHECK(d.completed_rungs.at(0) == 0.5);
  t0.rungs = d.completed_rungs;
  // Trial 1 reaches rung 0 with a worse value: of two, only the top 1 goes on.
  PrunerTrial t1 = running(1, {{0, 0.1}, {1, 0.1}});
  study.trials = {t0, t1};
  d = sha.decide(study, t1);
  CHECK(d.prune);
  CHECK(d.completed_rungs.at(0) == 0.1);
  // Before its first rung step, nothing is decided or recorded.
  d = sha.decide(study, running(2, {{0, -5}}));
  CHECK_FALSE(d.prune);
  CHECK(d.completed_rungs.empty());
}

TEST_CASE("a rung too far to reach in int64 is never reached, and the decision ends") {
  // reduction_factor 1000 to the power 110 overflowed, and the promotion
  // step wrapped below the trial's: decide() looped for ever.
  SuccessiveHalvingPruner sh(SuccessiveHalvingOptions{1, 1000, 110, 0});
  PrunerStudy study{"s", Direction::kMaximize, {complete(0, {{0, 1.0}, {5, 1.0}})}};
  for (int step : {0, 5, 1 << 30}) {
    const PruneDecision d = sh.decide(study, running(1, {{step, 2.0}}));
    CHECK_FALSE(d.prune);
    CHECK(d.completed_rungs.empty());
  }
}

TEST_CASE("hyperband whose max_resource comes out below min_resource runs one bracket") {
  // max_resource "auto" takes the first complete trial's last step + 1, which
  // can be below min_resource: no bracket at all once crashed decide().
  HyperbandPruner hb(HyperbandOptions{10, std::nullopt, 3, 0});
  PrunerStudy study{"s", Direction::kMaximize, {complete(0, {{0, 1.0}, {1, 1.0}})}};
  CHECK_FALSE(hb.decide(study, running(1, {{0, 0.5}})).prune);
  CHECK_FALSE(hb.decide(study, running(2, {{1, 0.5}})).prune);
}

TEST_CASE("hyperband makes floor(log_rf(max/min)) + 1 brackets and spreads trials over them") {
  HyperbandPruner hb(HyperbandOptions{1, 27, 3, 0});
  PrunerStudy study{"study", Direction::kMaximize, {running(0, {{0, 1.0}})}};
  hb.decide(study, study.trials[0]);
  CHECK(hb.n_brackets() == 4);
  std::set<int> seen;
  for (int n = 0; n < 200; ++n) seen.insert(hb.bracket_of("study", n));
  CHECK(seen == std::set<int>{0, 1, 2, 3});
}

}  // namespace
}  // namespace hpo
