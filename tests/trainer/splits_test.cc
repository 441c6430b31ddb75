#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "trainer/config.h"
#include "trainer/dataset.h"
#include "trainer/error.h"
#include "trainer/splits.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {
namespace {

TrainerConfig small_config(int horizon) {
  TrainerConfig c;
  c.horizon = horizon;
  c.lookback = 5;
  c.max_valid_samples = 0;
  return c;
}

Panel small_panel() {
  SyntheticSpec spec;
  spec.tickers = 12;
  spec.days = 240;
  spec.seed = 3;
  return make_synthetic_panel(spec).panel;
}

// Multiplies every price and volume on days >= `from` by a random factor.
Panel perturbed_from(Panel p, size_t from) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> factor(0.5, 2.0);
  for (size_t i = 0; i < p.num_tickers(); ++i)
    for (size_t t = from; t < p.num_days(); ++t) {
      size_t c = p.index(i, t);
      double f = factor(rng);
      p.open[c] *= f, p.high[c] *= f, p.low[c] *= f, p.close[c] *= f, p.volume[c] *= factor(rng);
    }
  return p;
}

bool same(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Every feature in the lookback window and the label of every sample in
// `samples` are identical in the two datasets.
void check_unchanged(const Dataset& a, const Dataset& b, const std::vector<Sample>& samples, int lookback) {
  size_t mismatches = 0;
  for (const Sample& s : samples) {
    for (size_t day = s.day + 1 - size_t(lookback); day <= s.day; ++day)
      for (size_t f = 0; f < a.features.num_features; ++f)
        mismatches += !same(a.features.row(s.ticker, day)[f], b.features.row(s.ticker, day)[f]);
    size_t c = a.features.cell(s.ticker, s.day);
    mismatches += !same(a.features.label[c], b.features.label[c]);
    mismatches += !same(a.features.target[c], b.features.target[c]);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("splits: time order with a gap of the horizon") {
  Splits s = make_splits(1000, 79, 5, 0.6, 0.2);
  CHECK(s.train.begin == 79);
  CHECK(s.valid.begin == s.train.end - 1 + 5 + 1);  // last train label day + 1
  CHECK(s.test.begin == s.valid.end - 1 + 5 + 1);
  CHECK(s.test.end == 1000 - 5);  // the last label reads the last day
  CHECK(s.train.size() > s.valid.size());
  CHECK_THROWS_AS(make_splits(90, 79, 5, 0.6, 0.2), UsageError);
}

// For one horizon and entry: the splits leave no look-ahead.
void check_no_look_ahead(int horizon, const char* entry) {
  TrainerConfig config = small_config(horizon);
  config.label_entry = entry;
  const size_t reach = label_reach({horizon, label_entry_named(entry).value()});
  Panel panel = small_panel();
  Dataset base = make_dataset(panel, config);
  REQUIRE(!base.train.empty());
  REQUIRE(!base.valid.empty());
  REQUIRE(!base.test.empty());
  // Labels end before the next split's first sample date.
  for (const Sample& s : base.train) CHECK(s.day + reach < base.splits.valid.begin);
  for (const Sample& s : base.valid) CHECK(s.day + reach < base.splits.test.begin);
  for (const Sample& s : base.test) CHECK(s.day + reach < panel.num_days());
  // Changing every price from the first validation date on changes nothing
  // the training split sees; likewise test vs validation.
  check_unchanged(base, make_dataset(perturbed_from(panel, base.splits.valid.begin), config), base.train,
                  config.lookback);
  check_unchanged(base, make_dataset(perturbed_from(panel, base.splits.test.begin), config), base.valid,
                  config.lookback);
  // The check has teeth: perturbing one day earlier does change a training label.
  Dataset leaky = make_dataset(perturbed_from(panel, base.splits.valid.begin - 1), config);
  size_t changed = 0;
  for (const Sample& s : base.train) {
    size_t c = base.features.cell(s.ticker, s.day);
    changed += !same(base.features.label[c], leaky.features.label[c]);
  }
  CHECK(changed > 0);
}

TEST_CASE("splits: no feature or label of an earlier split sees a later split's prices") {
  for (int horizon : {1, 3})
    for (const char* entry : {"next_open", "next_close", "close"}) {
      CAPTURE(horizon);
      CAPTURE(entry);
      check_no_look_ahead(horizon, entry);
    }
}

TEST_CASE("splits: validation can be thinned to whole dates") {
  TrainerConfig config = small_config(1);
  Dataset all = make_dataset(small_panel(), config);
  config.max_valid_samples = int64_t(all.valid.size() / 3);
  Dataset thin = make_dataset(small_panel(), config);
  CHECK(thin.valid.size() <= size_t(config.max_valid_samples));
  CHECK(thin.valid.size() > 0);
  // Every k-th date from the first, with k the smallest stride that fits.
  auto on_stride = [&](size_t k) {
    size_t n = 0;
    for (const Sample& s : all.valid) n += (s.day - all.splits.valid.begin) % k == 0;
    return n;
  };
  size_t k = 3;
  while (on_stride(k) > size_t(config.max_valid_samples)) ++k;
  CHECK(thin.valid.size() == on_stride(k));
  for (const Sample& s : thin.valid) CHECK((s.day - thin.splits.valid.begin) % k == 0);
  CHECK(thin.test.size() == all.test.size());
}

}  // namespace
}  // namespace hpo::trainer
