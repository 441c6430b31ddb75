#include "trainer/portfolio.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "tests/trainer/test_util.h"
#include "trainer/dataset.h"
#include "trainer/metrics.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {
namespace {

// Returns are one-day log returns; a position earns its simple return
// e^r - 1, and the book drifts with them before the next rebalance. Five
// names, k = 1, long T0 (+10%, r = log 1.10) and short T4 (-5%, r = log 0.95):
//   day 1: gross 1 * .10 + (-1) * (-.05) = .15 (log returns would add to .1466);
//          NAV 1.15; T0 drifts to 1.10 / 1.15, T4 to -.95 / 1.15.
//   day 2: the same book again, back to +1 / -1: turnover
//          (1 - 1.10 / 1.15) + (1 - .95 / 1.15) = .25 / 1.15 (not 0), and
//          with 10 bps, net = gross - .001 * .25 / 1.15.
TEST_CASE("portfolio: simple returns from log returns; turnover counts the day's drift") {
  std::vector<uint32_t> day, ticker;
  std::vector<float> pred, ret;
  const float up = float(std::log(1.10)), down = float(std::log(0.95));
  for (uint32_t d : {0u, 1u})
    for (uint32_t i = 0; i < 5; ++i) {
      day.push_back(d), ticker.push_back(i), pred.push_back(float(5 - i));
      ret.push_back(i == 0 ? up : i == 4 ? down : 0.0f);
    }
  const DailyPortfolio p = daily_long_short(day, ticker, pred, ret, 10.0);
  REQUIRE(p.days.size() == 2);
  CHECK(p.gross[0] == doctest::Approx(.15));
  CHECK(p.turnover[0] == doctest::Approx(2));
  CHECK(p.turnover[1] == doctest::Approx(.25 / 1.15));
  CHECK(p.net[1] == doctest::Approx(.15 - .001 * .25 / 1.15));
}

// Three days of five names (k = 1: one long, one short), worked by hand with
// a cost of 10 bps per unit of turnover. Returns are log returns r; a name
// earns R = e^r - 1, and the book drifts to w (1 + R) / (1 + gross):
//   day 1: long T0 (R .0100502), short T4 (R -.0198013), from an empty book:
//          turnover 2; gross .0298515, net .0298515 - .001 * 2 = .0278515;
//          drifted T0 1.0100502 / 1.0298515 = .980773, T4 -.951786
//   day 2: long T1, short T0: T0 .980773 -> -1, T1 0 -> 1, T4 -.951786 -> 0:
//          turnover 3.932559; gross .0202013 - .0100502 = .0101512,
//          net .0101512 - .0039326 = .0062186; drifted T1 1.009949, T0 -.999900
//   day 3: the same book: turnover .009949 + .000100 = .010049;
//          gross .0100502 + .0099502 = .0200003, net .0199903
// A fourth day of four names is skipped (fewer than 5).
TEST_CASE("portfolio: daily turnover and net returns against hand-computed values") {
  std::vector<uint32_t> day, ticker;
  std::vector<float> pred, ret;
  auto add = [&](uint32_t d, std::vector<float> p, std::vector<float> r) {
    for (uint32_t i = 0; i < p.size(); ++i)
      day.push_back(d), ticker.push_back(i), pred.push_back(p[i]), ret.push_back(r[i]);
  };
  add(3, {5, 4, 3, 2, 1}, {.01f, 0, 0, 0, -.02f});
  add(4, {1, 5, 3, 2, 4}, {.01f, .02f, 0, 0, 0});
  add(6, {1, 5, 3, 2, 4}, {-.01f, .01f, 0, 0, 0});
  add(7, {1, 2, 3, 4}, {1, 1, 1, 1});
  const DailyPortfolio p = daily_long_short(day, ticker, pred, ret, 10.0);
  REQUIRE(p.days == std::vector<uint32_t>{3, 4, 6});
  CHECK(p.turnover[0] == doctest::Approx(2));
  CHECK(p.turnover[1] == doctest::Approx(3.932559));
  CHECK(p.turnover[2] == doctest::Approx(.010049).epsilon(1e-4));
  CHECK(p.gross[0] == doctest::Approx(.0298515));
  CHECK(p.net[0] == doctest::Approx(.0278515));
  CHECK(p.net[1] == doctest::Approx(.0062186).epsilon(1e-4));
  CHECK(p.net[2] == doctest::Approx(.0199903));
  CHECK(p.mean_turnover() == doctest::Approx((2 + 3.932559 + .010049) / 3));
  const double mean = (.0278515 + .0062186 + .0199903) / 3;
  const double sd = std::sqrt(
      (std::pow(.0278515 - mean, 2) + std::pow(.0062186 - mean, 2) + std::pow(.0199903 - mean, 2)) /
      2);
  CHECK(p.net_sharpe() == doctest::Approx(mean / sd * std::sqrt(252.0)).epsilon(1e-4));
  // Without costs, net is gross.
  const DailyPortfolio free = daily_long_short(day, ticker, pred, ret, 0.0);
  CHECK(free.net[1] == doctest::Approx(.0101512).epsilon(1e-4));
}

// Ten names: k = 2, each held at 1/2. Swapping one long name for another
// trades 1/2 out and 1/2 in: turnover 1. A name with a NaN one-day return
// cannot be entered: its order is not filled, it earns and trades nothing.
TEST_CASE("portfolio: weights are 1/k, partial changes count per name, NaN returns earn nothing") {
  std::vector<uint32_t> day(20), ticker(20);
  std::vector<float> pred(20), ret(20, 0.0f);
  for (uint32_t i = 0; i < 10; ++i) {
    day[i] = 0, day[10 + i] = 1;
    ticker[i] = ticker[10 + i] = i;
    pred[i] = pred[10 + i] = float(i);
  }
  pred[10 + 9] = 6.5f;  // day 1: T9 falls below T7, which joins T8 in the top two
  ret[10 + 8] = float(std::log(1.04));  // long, at 1/2: +.02
  const DailyPortfolio p = daily_long_short(day, ticker, pred, ret, 0.0);
  REQUIRE(p.days.size() == 2);
  CHECK(p.turnover[0] == doctest::Approx(2));
  CHECK(p.turnover[1] == doctest::Approx(1));
  CHECK(p.gross[1] == doctest::Approx(.02));
  ret[10 + 7] = std::nanf("");  // T7 cannot be entered: T9 is sold, T7 not bought
  const DailyPortfolio unfilled = daily_long_short(day, ticker, pred, ret, 0.0);
  CHECK(unfilled.turnover[1] == doctest::Approx(.5));
  CHECK(unfilled.gross[1] == doctest::Approx(.02));
  CHECK(std::isfinite(unfilled.net_sharpe()));
}

// Five names, k = 1, long T0 and short T4 on days 0, 1 and 3; day 2 is
// skipped (too few names to score) and held through: the book earns T0's
// +10% and T4's -5% of that day (R = e^r - 1) with no trade, and drifts.
//   day 1: gross .15 as on day 0 (T0 +10%, T4 -5%); drifted T0 1.1 / 1.15,
//          T4 -.95 / 1.15
//   day 2 (held): gross (1.1 * .1 + .95 * .05) / 1.15 = .136957, turnover 0;
//          drifted T0 1.21 / (1.15 * 1.136957), T4 -.9025 / (1.15 * 1.136957)
//   day 3: back to +1 / -1 from those weights.
TEST_CASE("portfolio: a skipped day between scored days is held through and marked") {
  std::vector<uint32_t> day, ticker;
  std::vector<float> pred, ret;
  const float up = float(std::log(1.10)), down = float(std::log(0.95));
  for (uint32_t d : {0u, 1u, 3u})
    for (uint32_t i = 0; i < 5; ++i) {
      day.push_back(d), ticker.push_back(i), pred.push_back(float(5 - i));
      ret.push_back(i == 0 ? up : i == 4 ? down : 0.0f);
    }
  const HoldThrough hold{{2}, [&](uint32_t t, uint32_t) { return t == 0 ? up : down; }};
  const DailyPortfolio p = daily_long_short(day, ticker, pred, ret, 10.0, 5, hold);
  REQUIRE(p.days == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(p.skipped == std::vector<bool>{false, false, true, false});
  const double nav = 1.15 * (1 + (1.1 * .1 + .95 * .05) / 1.15);
  CHECK(p.gross[2] == doctest::Approx((1.1 * .1 + .95 * .05) / 1.15));
  CHECK(p.turnover[2] == 0);
  CHECK(p.net[2] == p.gross[2]);
  CHECK(p.turnover[3] == doctest::Approx((1 - 1.21 / nav) + (1 - .9025 / nav)));
  // Held names that are gone on the skipped day (NaN) were closed at their
  // last print: they leave as cash, earn nothing that day, trade nothing.
  const HoldThrough gone{{2}, [](uint32_t, uint32_t) { return double(NAN); }};
  const DailyPortfolio closed = daily_long_short(day, ticker, pred, ret, 10.0, 5, gone);
  CHECK(closed.gross[2] == 0);
  CHECK(closed.turnover[3] == doctest::Approx(2));  // the book is built again
}

// With a one-day label and no cost, the daily portfolio's return is the
// long-short label spread score() uses, so the net Sharpe is the gross one;
// a cost lowers it by the mean daily cost over the daily volatility.
TEST_CASE("portfolio: on a panel, zero-cost net Sharpe is the gross Sharpe; costs lower it") {
  SyntheticSpec spec;
  spec.tickers = 40;
  spec.days = 300;
  TrainerConfig config;
  config.lookback = 5;
  config.max_valid_samples = 0;
  SyntheticPanel synthetic = make_synthetic_panel(spec);
  Dataset d = make_dataset(synthetic.panel, config);
  d.oracle = synthetic.planted_score;
  const Scores free = oracle_scores(d, d.valid, 0.0), costly = oracle_scores(d, d.valid, 10.0);
  CHECK(free.sharpe_net == doctest::Approx(free.sharpe).epsilon(1e-4));
  CHECK(costly.sharpe_net < free.sharpe_net);
  CHECK(costly.turnover > 0);
  CHECK(costly.turnover <= 4.0);
  CHECK(costly.daily_net.size() == costly.daily_days.size());
  CHECK(costly.daily_rank_ic.size() == costly.daily_days.size());
}

// Every day from the first training day to the last test day that has no
// sample is a skipped day, those between the single split's blocks too: a
// cross-validation fold's validation block covers them, and a thin day left
// out of the list was dropped from its daily series, its return lost.
TEST_CASE("portfolio: a thin day between the blocks is held through by the folds that score it") {
  Panel panel = testing::full_synthetic_panel(10, 300, 12);
  TrainerConfig config;
  config.lookback = 5;
  config.max_valid_samples = 0;
  config.cv_scheme = "walk_forward";
  config.cv_folds = 3;
  const Splits splits = make_dataset(panel, config).splits;
  // The gap's last day (the gap is the label's reach), inside a fold's
  // validation block: its first day would have no book to hold yet.
  REQUIRE(splits.valid.begin >= splits.train.end + 2);
  const size_t gap = splits.valid.begin - 1;
  for (size_t t = 3; t < 10; ++t) testing::blank_rows(&panel, t, gap, gap + 1);
  const Dataset d = make_dataset(panel, config);
  CHECK(std::count(d.skipped_days.begin(), d.skipped_days.end(), uint32_t(gap)) == 1);
  bool scored = false;
  for (const FoldData& f : d.folds) {
    if (gap <= f.days.valid.begin || gap >= f.days.valid.end) continue;
    scored = true;
    std::vector<float> pred;
    for (const Sample& x : f.valid) pred.push_back(float(x.ticker));
    const Scores s = score_samples(d.features, f.valid, pred, 10.0, d.skipped_days);
    const auto at = std::find(s.daily_days.begin(), s.daily_days.end(), uint32_t(gap));
    REQUIRE(at != s.daily_days.end());  // in the series, not jumped over
    CHECK(s.daily_skipped[size_t(at - s.daily_days.begin())]);
  }
  CHECK(scored);  // some fold's validation covers the gap day
}

// A validation day on which only three of ten names trade has too few
// samples to score: it is a skipped day of the dataset, and the series holds
// the book through it (its return, a NaN RankIC, marked skipped) instead of
// jumping from the day before to the day after.
TEST_CASE("portfolio: a day too thin to score is held through in the daily series") {
  Panel panel = testing::full_synthetic_panel(10, 300, 11);
  TrainerConfig config;
  config.lookback = 5;
  config.max_valid_samples = 0;
  const size_t thin = make_dataset(panel, config).splits.valid.begin + 10;
  for (size_t t = 3; t < 10; ++t) testing::blank_rows(&panel, t, thin, thin + 1);
  const Dataset d = make_dataset(panel, config);
  CHECK(std::count(d.skipped_days.begin(), d.skipped_days.end(), uint32_t(thin)) == 1);
  std::vector<float> pred;
  for (const Sample& x : d.valid) pred.push_back(float(x.ticker));
  const Scores s = score_samples(d.features, d.valid, pred, 10.0, d.skipped_days);
  const auto at = std::find(s.daily_days.begin(), s.daily_days.end(), uint32_t(thin));
  REQUIRE(at != s.daily_days.end());
  const size_t k = size_t(at - s.daily_days.begin());
  CHECK(s.daily_skipped[k]);
  CHECK(std::isnan(s.daily_rank_ic[k]));
  CHECK(s.daily_net[k] != 0);  // the names held short (T0, T1) still trade
  CHECK(s.days == int(d.splits.valid.size()) - 1);  // scored days: all but the thin one
  CHECK(s.daily_days.size() == d.splits.valid.size());
}

// The book is the predictions' alone: renaming the names (another ticker
// order, as another data vendor's) changes neither the returns nor the
// turnover. Before, names tied at a leg's edge were taken in ticker order,
// so a collapsed model (one prediction for all) traded an alphabetical book
// and earned a Sharpe from the tickers' names.
TEST_CASE("portfolio: tied predictions share a leg's edge; the names' order does not matter") {
  std::mt19937 rng(17);
  for (int rep = 0; rep < 200; ++rep) {
    const uint32_t names = 5 + rng() % 30, days = 2 + rng() % 5;
    std::vector<uint32_t> day, ticker, renamed;
    std::vector<float> pred, ret;
    std::vector<uint32_t> perm(names);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (uint32_t d = 0; d < days; ++d)
      for (uint32_t i = 0; i < names; ++i) {
        day.push_back(d), ticker.push_back(i), renamed.push_back(perm[i]);
        // Few distinct values: ties everywhere, and every name alike on rep % 5 == 0.
        pred.push_back(rep % 5 == 0 ? 0.5f : float(rng() % 4));
        ret.push_back(float(std::normal_distribution<double>(0, 0.02)(rng)));
      }
    const DailyPortfolio a = daily_long_short(day, ticker, pred, ret, 10.0);
    const DailyPortfolio b = daily_long_short(day, renamed, pred, ret, 10.0);
    REQUIRE(a.days.size() == b.days.size());
    for (size_t k = 0; k < a.days.size(); ++k) {
      CHECK(a.net[k] == doctest::Approx(b.net[k]).epsilon(1e-9));
      CHECK(a.turnover[k] == doctest::Approx(b.turnover[k]).epsilon(1e-9));
      if (rep % 5 == 0) CHECK(a.turnover[k] == 0.0);  // one value for all: nothing held
      if (rep % 5 == 0) CHECK(a.gross[k] == 0.0);
    }
  }
}

TEST_CASE("portfolio: a leg's edge split among ties, by the places left") {
  // Ten names, k = 2. Predictions 9, 5, 5, 5, ... : the long leg holds the 9
  // whole and splits its second place among the three 5s (1/3 each).
  const std::vector<double> w = long_short_weights({9, 5, 5, 5, 1, 1, 1, 0, 0, -3});
  CHECK(w[0] == doctest::Approx(0.5));
  for (int i : {1, 2, 3}) CHECK(w[size_t(i)] == doctest::Approx(0.5 / 3));
  for (int i : {4, 5, 6}) CHECK(w[size_t(i)] == 0.0);
  for (int i : {7, 8}) CHECK(w[size_t(i)] == doctest::Approx(-0.25));  // one place for two
  CHECK(w[9] == doctest::Approx(-0.5));
  double gross = 0;
  for (double x : w) gross += std::fabs(x);
  CHECK(gross == doctest::Approx(2.0));
}

}  // namespace
}  // namespace hpo::trainer
