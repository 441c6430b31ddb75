// Universe membership is decided from what is known on the sample's day: a
// name that trades on day t is in that day's cross-section (for training,
// RankIC and the portfolio) whether or not it still trades when its label's
// position would be closed. A name that stops trading is closed at its last
// print (its last close), so its last move is in its return, and dropping it
// early, which needs tomorrow's data, cannot flatter the scores.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "trainer/config.h"
#include "trainer/dataset.h"
#include "trainer/panel.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {
namespace {

constexpr size_t kTickers = 10, kDays = 300;

Panel full_panel() {
  SyntheticSpec spec;
  spec.tickers = int(kTickers);
  spec.days = int(kDays);
  spec.seed = 11;
  spec.missing_rate = 0;
  return make_synthetic_panel(spec).panel;
}

// `ticker` has no row after `last_day`.
Panel delisted(Panel p, size_t ticker, size_t last_day) {
  for (auto* field : {&p.open, &p.high, &p.low, &p.close, &p.volume})
    for (size_t t = last_day + 1; t < p.num_days(); ++t) (*field)[p.index(ticker, t)] = NAN;
  return p;
}

TrainerConfig config_with_horizon(int horizon) {
  TrainerConfig c;
  c.horizon = horizon;
  c.lookback = 5;
  c.max_valid_samples = 0;  // every valid date
  return c;
}

bool has(const std::vector<Sample>& samples, size_t ticker, size_t day) {
  for (const Sample& s : samples)
    if (s.ticker == ticker && s.day == day) return true;
  return false;
}

// Samples dated on or before `day`, in order.
std::vector<std::pair<uint32_t, uint32_t>> up_to(const std::vector<Sample>& samples, size_t day) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const Sample& s : samples)
    if (s.day <= day) out.emplace_back(s.ticker, s.day);
  return out;
}

TEST_CASE("delisting: a name is in the universe on every day it trades, up to its last") {
  const Panel full = full_panel();
  for (int horizon : {1, 3}) {
    CAPTURE(horizon);
    const TrainerConfig config = config_with_horizon(horizon);
    const Dataset base = make_dataset(full, config);
    const size_t last = base.splits.valid.begin + 20;  // T2 and T7 delist inside valid
    Panel panel = delisted(delisted(full, 2, last), 7, last + 1);
    const Dataset d = make_dataset(panel, config);
    for (size_t t = last - 5; t <= last; ++t) {
      CAPTURE(t);
      CHECK(has(d.valid, 2, t));
      CHECK(has(d.valid, 7, t));
    }
    CHECK(has(d.valid, 7, last + 1));
    CHECK_FALSE(has(d.valid, 2, last + 1));  // no row: not tradable that day
    // Point in time: what is known by day t does not depend on later days, so
    // the samples up to `last` are those of the panel where nothing delists.
    CHECK(up_to(d.valid, last) == up_to(base.valid, last));
    CHECK(up_to(d.train, base.splits.train.end) == up_to(base.train, base.splits.train.end));
  }
}

// Next-open entry, horizon 3, T2's last row on day L: the label of day t is
// log(open[t + 4] / open[t + 1]) while t + 4 <= L, else log(close[L] /
// open[t + 1]): the position is closed at the last print; one that cannot be
// entered (t = L) has the label 0 and, for the portfolio, a NaN one-day
// return (an order that is not filled).
TEST_CASE("delisting: a name that stops trading is closed at its last print") {
  const Panel full = full_panel();
  const TrainerConfig config = config_with_horizon(3);
  const size_t last = make_dataset(full, config).splits.valid.begin + 20;
  const Panel panel = delisted(full, 2, last);
  const Dataset d = make_dataset(panel, config);
  const FeatureSet& fs = d.features;
  const double last_print = panel.close[panel.index(2, last)];
  auto exit = [&](size_t t) { return t <= last ? panel.open[panel.index(2, t)] : last_print; };
  for (size_t t = last - 5; t < last; ++t) {
    CAPTURE(t);
    const double entry = panel.open[panel.index(2, t + 1)];
    CHECK(fs.label[fs.cell(2, t)] == doctest::Approx(std::log(exit(t + 4) / entry)).epsilon(1e-6));
    CHECK(fs.daily_return[fs.cell(2, t)] ==
          doctest::Approx(std::log(exit(t + 2) / entry)).epsilon(1e-6));
  }
  CHECK(fs.label[fs.cell(2, last)] == 0.0f);
  CHECK(std::isnan(fs.daily_return[fs.cell(2, last)]));
  // The other names' labels do not move.
  const Dataset base = make_dataset(full, config);
  for (size_t t = last - 5; t <= last; ++t)
    CHECK(fs.label[fs.cell(3, t)] == base.features.label[base.features.cell(3, t)]);
}

// The portfolio and RankIC score a delisting name on its last days: a long
// book in it earns its last move and then 0.
TEST_CASE("delisting: the scores count the delisting name's last days") {
  const Panel full = full_panel();
  const TrainerConfig config = config_with_horizon(1);
  const size_t last = make_dataset(full, config).splits.valid.begin + 20;
  const Dataset d = make_dataset(delisted(full, 2, last), config);
  std::vector<float> pred;  // T2 always ranks first: it is long every day it is there
  for (const Sample& s : d.valid) pred.push_back(s.ticker == 2 ? 10.0f : float(s.ticker));
  const Scores s = score_samples(d.features, d.valid, pred);
  CHECK(s.days == int(d.splits.valid.size()));  // no day lost
  size_t days_with_t2 = 0;
  for (const Sample& x : d.valid) days_with_t2 += x.ticker == 2;
  CHECK(days_with_t2 == last - d.splits.valid.begin + 1);
}

// The issue-24 reproduction: T2's last print closes at half its open, and a
// constant prediction holds it long. The day before, the book's net return
// holds T2's -50% (at weight 1/2), computed here from the panel's prices:
// before the last-print rule the crash was in no return at all.
TEST_CASE("delisting: the delisting crash is in the portfolio's net return") {
  const Panel full = full_panel();
  const TrainerConfig config = config_with_horizon(1);
  const size_t last = make_dataset(full, config).splits.valid.begin + 20;
  Panel panel = delisted(full, 2, last);
  panel.close[panel.index(2, last)] = 0.5 * panel.open[panel.index(2, last)];
  panel.low[panel.index(2, last)] = panel.close[panel.index(2, last)];
  const Dataset d = make_dataset(panel, config);
  std::vector<float> pred;  // T2 first, then T9, T8, ...: long T2 and T9, short T0 and T1
  for (const Sample& s : d.valid) pred.push_back(s.ticker == 2 ? 10.0f : float(s.ticker));
  const Scores s = score_samples(d.features, d.valid, pred, 0.0);
  auto day_index = [&](size_t day) {
    return size_t(std::find(s.daily_days.begin(), s.daily_days.end(), day) - s.daily_days.begin());
  };
  // Next-open entry: the book of day L - 1 is entered at open[L] and closed
  // at open[L + 1], or at the last print close[L] for T2.
  auto simple = [&](size_t ticker, size_t t) {
    const size_t i = panel.index(ticker, t);
    const double exit = ticker == 2 && t == last ? panel.close[i] : panel.open[i + 1];
    return exit / panel.open[i] - 1;
  };
  const double want =
      .5 * (simple(2, last) + simple(9, last)) - .5 * (simple(0, last) + simple(1, last));
  REQUIRE(day_index(last - 1) < s.daily_net.size());
  CHECK(simple(2, last) == doctest::Approx(-.5));
  CHECK(s.daily_net[day_index(last - 1)] == doctest::Approx(want).epsilon(1e-5));
  CHECK(s.daily_net[day_index(last - 1)] < -.2);
}

// An independent computation: tests/trainer/data/make_delisting_reference.py
// wrote a panel where T2 delists, T5 halts for three days and T6 lists late,
// with every (ticker, day)'s label membership, label (horizon 3, next open)
// and one-day return computed by pandas, vectorized over whole columns.
TEST_CASE("delisting: labels and membership agree with pandas on a panel with delistings") {
  const std::filesystem::path data = std::filesystem::path(__FILE__).parent_path() / "data";
  const Panel panel = read_panel_csv((data / "delisting_panel.csv").string());
  const FeatureSet fs = compute_features(panel, {3, LabelEntry::kNextOpen});
  std::ifstream in(data / "delisting_labels.csv");
  std::string line;
  std::getline(in, line);  // header
  size_t rows = 0, members = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string ticker, day, label, daily;
    std::getline(fields, ticker, ',');
    std::getline(fields, day, ',');
    std::getline(fields, label, ',');
    std::getline(fields, daily, ',');
    CAPTURE(line);
    const size_t i = size_t(std::stoi(ticker.substr(1))), t = size_t(std::stoi(day));
    REQUIRE(panel.tickers[i] == ticker);
    const double want = std::stod(label), want_daily = std::stod(daily);
    const bool member = std::isfinite(want);
    CHECK(std::isfinite(fs.label[fs.cell(i, t)]) == member);
    CHECK(std::isfinite(fs.daily_return[fs.cell(i, t)]) == std::isfinite(want_daily));
    if (member) CHECK(fs.label[fs.cell(i, t)] == doctest::Approx(want).epsilon(1e-6).scale(1));
    if (std::isfinite(want_daily))
      CHECK(fs.daily_return[fs.cell(i, t)] == doctest::Approx(want_daily).epsilon(1e-6).scale(1));
    ++rows, members += member;
  }
  CHECK(rows == 8 * 40);
  CHECK(members > 200);
}

}  // namespace
}  // namespace hpo::trainer
