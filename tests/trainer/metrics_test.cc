#include "trainer/metrics.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "tests/trainer/tiny_config.h"
#include "trainer/dataset.h"
#include "trainer/day_groups.h"
#include "trainer/panel_memo.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {
namespace {

// Two days of five names, worked by hand:
//   day 1: pred 1..5, label .1 .3 .2 .5 .4 -> ranks 1 3 2 5 4,
//          Spearman 1 - 6*4/(5*24) = 0.8; label is rank/10 so Pearson 0.8;
//          top 20% (pred 5) has the log return .4, bottom (pred 1) .1: a
//          position earns its simple return, long-short e^.4 - e^.1 = 0.38666.
//   day 2: pred 5..1, label .1 .. .5 -> Spearman -1, Pearson -1,
//          long-short e^.1 - e^.5 = -0.54355.
TEST_CASE("metrics: RankIC, IC, ICIR and Sharpe against hand-computed values") {
  std::vector<float> pred = {1, 2, 3, 4, 5, 5, 4, 3, 2, 1};
  std::vector<float> label = {.1f, .3f, .2f, .5f, .4f, .1f, .2f, .3f, .4f, .5f};
  std::vector<float> target(10, 0.0f);
  std::vector<uint32_t> day = {7, 7, 7, 7, 7, 9, 9, 9, 9, 9};
  Scores s = score(pred, label, target, day);
  CHECK(s.days == 2);
  CHECK(s.rank_ic == doctest::Approx((0.8 - 1.0) / 2));
  CHECK(s.ic == doctest::Approx((0.8 - 1.0) / 2));
  // std (ddof 1) of {0.8, -1} is 1.8 / sqrt(2).
  CHECK(s.rank_icir == doctest::Approx(-0.1 / (1.8 / std::sqrt(2.0))));
  // Long-short returns {.38666, -.54355}: mean -.078445, std .93021 / sqrt(2).
  const double day1 = std::exp(.4) - std::exp(.1), day2 = std::exp(.1) - std::exp(.5);
  CHECK(day1 == doctest::Approx(.38666).epsilon(1e-4));
  CHECK(s.long_short == doctest::Approx((day1 + day2) / 2));
  CHECK(s.sharpe ==
        doctest::Approx((day1 + day2) / 2 / ((day1 - day2) / std::sqrt(2.0)) * std::sqrt(252.0)));
  // MSE against the target: mean of pred^2 = (1+4+9+16+25)*2/10.
  CHECK(s.loss == doctest::Approx(11.0));
}

TEST_CASE("metrics: top and bottom 20% of ten names are two each") {
  std::vector<float> pred = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> label = {.01f, .02f, 0, 0, 0, 0, 0, 0, .05f, .07f};
  std::vector<uint32_t> day(10, 0);
  Scores s = score(pred, label, std::vector<float>(10, 0.0f), day);
  // Simple returns of the log labels: (e^.05 + e^.07) / 2 - (e^.01 + e^.02) / 2.
  CHECK(s.long_short == doctest::Approx(0.0467639).epsilon(1e-5));
  CHECK(s.sharpe == 0.0);  // one day: no std
}

TEST_CASE("metrics: Spearman uses average ranks for ties; constants score 0") {
  CHECK(spearman({1, 2, 2, 3}, {1, 2, 3, 4}) ==
        doctest::Approx(pearson({1, 2.5, 2.5, 4}, {1, 2, 3, 4})));
  CHECK(spearman({1, 1, 1}, {1, 2, 3}) == 0.0);
  CHECK(pearson({1, 2, 3}, {3, 2, 1}) == doctest::Approx(-1.0));
}

double mean(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v;
  return sum / double(x.size());
}

double sample_std(const std::vector<double>& x) {
  double m = mean(x), ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / double(x.size() - 1));
}

// With a horizon of h days, a day's long-short return is an h-day return and
// consecutive days' returns share h - 1 days: annualizing all of them by
// sqrt(252) overstates the Sharpe. The Sharpe is that of the returns h days
// apart, annualized by sqrt(252 / h).
TEST_CASE(
    "metrics: the Sharpe of an h-day horizon is the annualized Sharpe of non-overlapping returns") {
  SyntheticSpec spec;
  spec.tickers = 5;  // the top and bottom 20% are one name each
  spec.days = 700;
  spec.missing_rate = 0;
  const Panel panel = make_synthetic_panel(spec).panel;
  for (int horizon : {1, 3, 5}) {
    CAPTURE(horizon);
    TrainerConfig config;
    config.horizon = horizon;
    config.lookback = 5;
    config.max_valid_samples = 0;  // every date
    const Dataset d = make_dataset(panel, config);
    // Predict the ticker's index: each day, long ticker 4 and short ticker 0.
    std::vector<float> pred;
    for (const Sample& s : d.valid) pred.push_back(float(s.ticker));
    const FeatureSet& fs = d.features;
    std::vector<double> returns;
    for (size_t t = d.splits.valid.begin; t < d.splits.valid.end; t += size_t(horizon))
      returns.push_back(std::expm1(double(fs.label[fs.cell(4, t)])) -
                        std::expm1(double(fs.label[fs.cell(0, t)])));
    REQUIRE(returns.size() > 20);
    const Scores s = score_samples(fs, d.valid, pred);
    CHECK(s.sharpe ==
          doctest::Approx(mean(returns) / sample_std(returns) * std::sqrt(252.0 / horizon)));
  }
}

TEST_CASE("metrics: days with fewer than five names are skipped") {
  Scores s = score({1, 2, 3}, {1, 2, 3}, {0, 0, 0}, {1, 1, 1});
  CHECK(s.days == 0);
  CHECK(s.rank_ic == 0.0);
}

// The order the long-short legs are cut from is a stable sort's, descending:
// with ties, signed zeros, and NaN (a diverged model predicts NaN).
TEST_CASE("metrics: predictions are ordered highest first, ties in input order") {
  std::mt19937 rng(5);
  for (int rep = 0; rep < 300; ++rep) {
    std::vector<double> pred(rng() % 80);
    for (double& p : pred) {
      p = std::normal_distribution<double>()(rng);
      if (rep % 4 == 1) p = std::round(p);
      if (rep % 4 == 2) p = (rng() % 2) ? 0.0 : -0.0;
      if (rep % 4 == 3 && rng() % 10 == 0) p = NAN;
    }
    std::vector<size_t> stable(pred.size());
    std::iota(stable.begin(), stable.end(), size_t(0));
    std::stable_sort(stable.begin(), stable.end(),
                     [&](size_t a, size_t b) { return pred[a] > pred[b]; });
    CHECK(by_prediction(pred) == stable);
  }
}

// Both ways of grouping: a calendar's days (counted) and days far apart
// (sorted).
TEST_CASE("metrics: samples are grouped by day, ascending, in input order within a day") {
  std::mt19937 rng(9);
  for (uint32_t spread : {30u, 4000000000u}) {
    std::vector<uint32_t> day(500);
    for (uint32_t& d : day) d = 7 + uint32_t(rng() % 30) * (spread / 30);
    const DayGroups g = group_by_day(day);
    REQUIRE(g.begin.size() == g.size() + 1);
    CHECK(g.begin.back() == day.size());
    std::vector<bool> seen(day.size(), false);
    for (size_t k = 0; k < g.size(); ++k) {
      if (k > 0) CHECK(g.days[k - 1] < g.days[k]);
      for (const size_t* i = g.first(k); i != g.first(k + 1); ++i) {
        CHECK(day[*i] == g.days[k]);
        if (i != g.first(k)) CHECK(*(i - 1) < *i);
        CHECK_FALSE(seen[*i]);
        seen[*i] = true;
      }
    }
    CHECK(std::count(seen.begin(), seen.end(), true) == long(day.size()));
  }
  CHECK(group_by_day({}).size() == 0);
}

// A server remembers the oracle's scores of the windows its trials score
// (dataset.cc). What it hands back must be what scoring afresh gives, after
// any change of window, cost or data.
TEST_CASE("metrics: a server's remembered oracle scores are those computed afresh") {
  Dataset d = load_dataset(testing::tiny_config());
  REQUIRE_FALSE(d.oracle.empty());
  const auto afresh = [](const Dataset& data, const std::vector<Sample>& s, double cost) {
    set_panel_memo(false);  // also forgets every remembered score
    const Scores scores = oracle_scores(data, s, cost);
    set_panel_memo(true);
    return scores;
  };
  struct MemoOff {
    ~MemoOff() { set_panel_memo(false); }
  } memo_off;
  set_panel_memo(true);
  const auto check = [&](const Dataset& data, const std::vector<Sample>& s, double cost) {
    const Scores got = oracle_scores(data, s, cost), want = afresh(data, s, cost);
    CHECK(got.rank_ic == want.rank_ic);
    CHECK(got.sharpe == want.sharpe);
    CHECK(got.sharpe_net == want.sharpe_net);
    CHECK(got.daily_net == want.daily_net);
  };
  const auto remember = [&](const Dataset& data, const std::vector<Sample>& s, double cost) {
    oracle_scores(data, s, cost);
  };
  remember(d, d.valid, 10);
  check(d, d.valid, 10);  // the same window again
  remember(d, d.valid, 10);
  check(d, d.test, 10);  // another window
  remember(d, d.valid, 10);
  check(d, d.valid, 30);  // another cost
  remember(d, d.valid, 10);
  std::vector<Sample> fewer(d.valid.begin() + 1, d.valid.end());
  check(d, fewer, 10);  // a sample fewer
  Dataset changed = d;
  changed.oracle[changed.features.cell(d.valid[7].ticker, d.valid[7].day)] += 1;
  remember(d, d.valid, 10);
  check(changed, changed.valid, 10);  // another oracle value
  changed = d;
  changed.features.daily_return[changed.features.cell(d.valid[7].ticker, d.valid[7].day)] += .5f;
  remember(d, d.valid, 10);
  check(changed, changed.valid, 10);  // another return
}

}  // namespace
}  // namespace hpo::trainer
