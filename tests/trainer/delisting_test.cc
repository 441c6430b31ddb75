// Universe membership is decided from what is known on the sample's day: a
// name that trades on day t is in that day's cross-section (for training,
// RankIC and the portfolio) whether or not it still trades when its label's
// position would be closed. A name that stops trading earns its last price
// (a delisting return of 0), so dropping it early, which needs tomorrow's
// data, cannot flatter the scores.
#include <doctest/doctest.h>

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
// log(open[min(t + 4, L)] / open[min(t + 1, L)]): the position is closed at
// the last price, and one entered after the last row earns 0.
TEST_CASE("delisting: a name that stops trading earns its last price") {
  const Panel full = full_panel();
  const TrainerConfig config = config_with_horizon(3);
  const size_t last = make_dataset(full, config).splits.valid.begin + 20;
  const Panel panel = delisted(full, 2, last);
  const Dataset d = make_dataset(panel, config);
  const FeatureSet& fs = d.features;
  auto open = [&](size_t t) { return panel.open[panel.index(2, std::min(t, last))]; };
  for (size_t t = last - 5; t <= last; ++t) {
    CAPTURE(t);
    const double want = std::log(open(t + 4) / open(t + 1));
    CHECK(fs.label[fs.cell(2, t)] == doctest::Approx(want).epsilon(1e-6));
    const double want_daily = std::log(open(t + 2) / open(t + 1));
    CHECK(fs.daily_return[fs.cell(2, t)] == doctest::Approx(want_daily).epsilon(1e-6));
  }
  CHECK(fs.label[fs.cell(2, last)] == 0.0f);
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

// An independent computation: tests/trainer/data/make_delisting_reference.py
// wrote a panel where T2 delists, T5 halts for three days and T6 lists late,
// with every (ticker, day)'s membership, label (horizon 3, next open) and
// one-day return computed by pandas, vectorized over whole columns.
TEST_CASE("delisting: labels and membership agree with pandas on a panel with delistings") {
  const std::filesystem::path data = std::filesystem::path(__FILE__).parent_path() / "data";
  const Panel panel = read_panel_csv((data / "delisting_panel.csv").string());
  const FeatureSet fs = compute_features(panel, {3, LabelEntry::kNextOpen});
  const std::vector<Sample> samples = samples_in(fs, {0, fs.num_days});
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
    CHECK(has(samples, i, t) == member);
    if (member) {
      CHECK(fs.label[fs.cell(i, t)] == doctest::Approx(want).epsilon(1e-6).scale(1));
      CHECK(fs.daily_return[fs.cell(i, t)] == doctest::Approx(want_daily).epsilon(1e-6).scale(1));
    }
    ++rows, members += member;
  }
  CHECK(rows == 8 * 40);
  CHECK(samples.size() == members);
}

}  // namespace
}  // namespace hpo::trainer
