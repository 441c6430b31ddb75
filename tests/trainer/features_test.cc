#include "trainer/features.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "trainer/splits.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {
namespace {

// Three tickers over 80 days. A's daily return alternates +1% / -2%, B's is
// the opposite, C's is 0, so the cross-sectional order of one-day returns
// flips every day: a feature or label shifted by one day would flip sign.
// C has no row on day 70.
double daily_return(int ticker, size_t t) {
  if (t == 0 || ticker == 2) return 0.0;
  double a = t % 2 == 0 ? 0.01 : -0.02;
  return ticker == 0 ? a : -a;
}

Panel hand_made_panel() {
  Panel p;
  for (int d = 0; d < 80; ++d) p.dates.push_back("d" + std::to_string(100 + d));
  p.tickers = {"A", "B", "C"};
  p.allocate();
  for (size_t i = 0; i < 3; ++i) {
    double log_close = std::log(100.0);
    for (size_t t = 0; t < 80; ++t) {
      log_close += daily_return(int(i), t);
      if (i == 2 && t == 70) continue;
      size_t c = p.index(i, t);
      p.close[c] = std::exp(log_close);
      p.open[c] = p.close[c];
      p.high[c] = p.close[c] * 1.01;
      p.low[c] = p.close[c] * 0.99;
      p.volume[c] = 1000;
    }
  }
  return p;
}

size_t feature_index(const FeatureSet& fs, const std::string& name) {
  for (size_t f = 0; f < fs.names.size(); ++f)
    if (fs.names[f] == name) return f;
  FAIL("no feature " << name);
  return 0;
}

float feature(const FeatureSet& fs, size_t ticker, size_t day, const std::string& name) {
  return fs.row(ticker, day)[feature_index(fs, name)];
}

LabelSpec held(int horizon, LabelEntry entry = LabelEntry::kNextOpen) {
  return LabelSpec{horizon, entry};
}

TEST_CASE("features: one-day return is aligned to its date") {
  FeatureSet fs = compute_features(hand_made_panel(), held(2));
  const float z = float(std::sqrt(1.5));  // z-scores of (+x, -x, 0): +-sqrt(3/2), 0
  for (size_t t = 61; t < 70; ++t) {
    float sign = t % 2 == 0 ? 1.0f : -1.0f;  // A's return on day t is + on even days
    CHECK(feature(fs, 0, t, "ret_1") == doctest::Approx(sign * z));
    CHECK(feature(fs, 1, t, "ret_1") == doctest::Approx(-sign * z));
    CHECK(feature(fs, 2, t, "ret_1") == doctest::Approx(0.0f));
  }
}

// The hand-made panel opens at the previous close, so every entry reads
// closes; a label shifted by one day would flip sign.
TEST_CASE("features: label is the forward return over the horizon, from its entry") {
  struct Case {
    LabelEntry entry;
    size_t first;  // the first day whose return the label of day t holds, minus t
  };
  for (Case c : {Case{LabelEntry::kNextOpen, 2}, Case{LabelEntry::kNextClose, 2},
                 Case{LabelEntry::kClose, 1}}) {
    CAPTURE(int(c.entry));
    FeatureSet fs = compute_features(hand_made_panel(), held(2, c.entry));
    for (size_t t = 60; t < 66; ++t) {
      double expected = daily_return(0, t + c.first) + daily_return(0, t + c.first + 1);
      CHECK(fs.label[fs.cell(0, t)] == doctest::Approx(expected).epsilon(1e-5));
      // The target is the label z-scored across tickers on the same date.
      float sign = expected > 0 ? 1.0f : -1.0f;
      CHECK(fs.target[fs.cell(0, t)] == doctest::Approx(sign * std::sqrt(1.5f)));
    }
    // With horizon 1 the label alternates with the day, so alignment shows.
    FeatureSet one = compute_features(hand_made_panel(), held(1, c.entry));
    for (size_t t = 60; t < 66; ++t)
      CHECK(one.label[one.cell(0, t)] ==
            doctest::Approx(daily_return(0, t + c.first)).epsilon(1e-5));
    // The last days, whose label would read past the end, have none.
    const size_t reach = label_reach(held(2, c.entry));
    CHECK(reach == c.first + 1);
    CHECK(std::isnan(fs.label[fs.cell(0, 80 - reach)]));
    CHECK_FALSE(std::isnan(fs.label[fs.cell(0, 79 - reach)]));
  }
}

// Before issue 20 the labels of days 67 and 69 were NaN and their samples
// dropped: deciding on day 67 that C will miss day 70 needs day 70's data.
// Now only day 70 itself (no row) leaves C out.
TEST_CASE("features: a missing day blanks its features; labels that need it use what is known") {
  FeatureSet fs = compute_features(hand_made_panel(), held(2));
  for (size_t f = 0; f < fs.num_features; ++f) CHECK(fs.row(2, 70)[f] == 0.0f);
  // Labels of C: day 67 exits at the open of day 70, missing: closed at its
  // last print, day 69's close; day 69 cannot enter at day 70's open: 0.
  CHECK(fs.label[fs.cell(2, 67)] == doctest::Approx(daily_return(2, 69)).epsilon(1e-5));
  CHECK(fs.label[fs.cell(2, 69)] == 0.0f);
  CHECK(std::isnan(fs.label[fs.cell(2, 70)]));
  CHECK_FALSE(std::isnan(fs.label[fs.cell(2, 66)]));
  CHECK_FALSE(std::isnan(fs.label[fs.cell(2, 68)]));
  // Days 77 on read past day 79: 17 labelled days each, day 70 missing for C.
  fs.min_names = 2;  // three names: the default floor of 5 would skip every day
  std::vector<Sample> samples = samples_in(fs, DayRange{60, 78});
  for (const Sample& s : samples) CHECK_FALSE((s.ticker == 2 && s.day == 70));
  CHECK(samples.size() == 3 * 17 - 1);
}

TEST_CASE("features: the longest window needs 60 days of history") {
  FeatureSet fs = compute_features(hand_made_panel(), held(1));
  CHECK(fs.first_full_day == kLongestWindow);
  // ret_60 is missing (0 after normalization) for every ticker before day 60.
  for (size_t i = 0; i < 3; ++i) CHECK(feature(fs, i, 59, "ret_60") == 0.0f);
  CHECK(feature(fs, 0, 61, "ret_60") != 0.0f);
}

TEST_CASE("features: cross-sectional normalization") {
  std::vector<float> v = {1, 2, 3, std::numeric_limits<float>::quiet_NaN()};  // 4 tickers, 1 day
  normalize_cross_sections(&v, 4, 1, 1, -9.0f);
  CHECK(v[0] == doctest::Approx(-std::sqrt(1.5)));
  CHECK(v[1] == doctest::Approx(0.0));
  CHECK(v[2] == doctest::Approx(std::sqrt(1.5)));
  CHECK(v[3] == -9.0f);
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST_CASE("features: the same values, bit for bit, on any number of threads") {
  SyntheticSpec spec;
  spec.tickers = 23;  // not a multiple of the thread counts below
  spec.days = 211;
  spec.missing_rate = 0.05;
  Panel panel = make_synthetic_panel(spec).panel;
  // Ticker 5 stops trading on day 150: its last labels close at a delisting.
  for (size_t t = 150; t < panel.num_days(); ++t) {
    const size_t c = panel.index(5, t);
    panel.open[c] = panel.high[c] = panel.low[c] = panel.close[c] = panel.volume[c] = NAN;
  }
  const FeatureSet one = compute_features(panel, held(3), 3, 1);
  REQUIRE(one.delisting_labels > 0);
  for (size_t threads : {2, 3, 7, 64}) {
    CAPTURE(threads);
    const FeatureSet many = compute_features(panel, held(3), 3, threads);
    CHECK(same_bits(many.values, one.values));
    CHECK(same_bits(many.label, one.label));
    CHECK(same_bits(many.target, one.target));
    CHECK(same_bits(many.daily_return, one.daily_return));
    CHECK(many.first_row == one.first_row);
    CHECK(many.delisting_labels == one.delisting_labels);
  }
}

}  // namespace
}  // namespace hpo::trainer
