#include "trainer/splits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "tests/trainer/test_util.h"
#include "trainer/config.h"
#include "trainer/dataset.h"
#include "trainer/error.h"
#include "trainer/synthetic.h"
#include "trainer/trainer.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

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
void check_unchanged(const Dataset& a, const Dataset& b, const std::vector<Sample>& samples,
                     int lookback) {
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

TEST_CASE("splits: a panel whose every date is too thin says so, not '0 days'") {
  testing::TempDir dir;
  TrainerConfig config = small_config(1);
  config.data = dir.file("p.csv");
  write_panel_csv(small_panel(), config.data);
  config.min_names = 50;  // the panel has 12
  CHECK_THROWS_WITH_AS(load_dataset(config),
                       doctest::Contains("has fewer than min_names (50) names trading, so none is "
                                         "left; lower min_names or add names"),
                       UsageError);
}

// A validation block whose dates are traded, but by too few names past
// their warm-up, has nothing to score: the trainer said valid_rank_ic 0 and
// exited 0, and a study ranked that 0 as a result.
TEST_CASE("splits: a block with no scoreable day is refused, not scored as 0") {
  Panel panel = testing::full_synthetic_panel(30, 320);
  TrainerConfig config;
  config.lookback = 5;
  config.min_names = 15;
  const DayRange valid = make_dataset(panel, config).splits.valid;
  // Names 0-9 trade throughout; 10-19 stop before the validation block and
  // come back after it; 20-29 list just before it, so they are in their
  // warm-up all through it. Every date keeps 20 names: the calendar drops none.
  REQUIRE(valid.size() < 60);  // shorter than the warm-up of names listed at its start
  for (size_t t = 10; t < 20; ++t) testing::blank_rows(&panel, t, valid.begin - 3, valid.end + 3);
  for (size_t t = 20; t < 30; ++t) testing::blank_rows(&panel, t, 0, valid.begin - 3);
  const Dataset d = make_dataset(panel, config);  // --export-features writes it as it is
  std::string message;
  try {
    require_scoreable(d, config);
  } catch (const UsageError& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.find("the validation block (") != std::string::npos);
  CHECK(message.find("15 or more names (min_names)") != std::string::npos);
  CHECK(message.find("nothing to score") != std::string::npos);
  config.min_names = 10;  // names 0-9 alone score it
  CHECK_NOTHROW(require_scoreable(make_dataset(panel, config), config));
  // Cross-validation: the walk-forward fold over those days is refused by its number.
  config.min_names = 15;
  config.cv_scheme = "walk_forward";
  config.cv_folds = 3;
  message.clear();
  try {
    require_scoreable(make_dataset(panel, config), config);
  } catch (const UsageError& e) {
    message = e.what();
  }
  CHECK(message.find("the fold ") != std::string::npos);
  CHECK(message.find(" validation block (") != std::string::npos);
}

TEST_CASE("splits: too few days name the data file") {
  hpo::trainer::testing::TempDir dir;
  std::string csv = "date,ticker,open,high,low,close,volume\n";
  for (int d = 0; d < 40; ++d)
    for (int t = 0; t < 6; ++t)
      csv += fmt::format("2021-{:02d}-{:02d},T{},10,11,9,10,100\n", 1 + d / 20, 1 + d % 20, t);
  TrainerConfig config;
  config.data = dir.write("short.csv", csv);
  std::string message;
  try {
    load_dataset(config);
  } catch (const UsageError& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.rfind(config.data + ": ", 0) == 0);  // not "data: "
  CHECK(message.find(" days are too few") != std::string::npos);
}

TEST_CASE("splits: time order with a gap of the horizon") {
  Splits s = make_splits(1000, 79, 5, 0.6, 0.2);
  CHECK(s.train.begin == 79);
  CHECK(s.valid.begin == s.train.end - 1 + 5 + 1);  // last train label day + 1
  CHECK(s.test.begin == s.valid.end - 1 + 5 + 1);
  CHECK(s.test.end == 1000 - 5);  // the last label reads the last day
  CHECK(s.train.size() > s.valid.size());
  CHECK_THROWS_AS(make_splits(90, 79, 5, 0.6, 0.2), UsageError);
  // The message gives the number of days needed, which the data did not have:
  // 79 + 3 gaps of 5, and more than 3 days left for the blocks: 98; 97 fail.
  CHECK_THROWS_WITH_AS(make_splits(97, 79, 5, 0.6, 0.2),
                       doctest::Contains("97 days are too few: a warm-up of 79 days, a gap of 5 "
                                         "days"),
                       UsageError);
  CHECK_THROWS_WITH_AS(make_splits(97, 79, 5, 0.6, 0.2), doctest::Contains("need at least 98"),
                       UsageError);
  CHECK_NOTHROW(make_splits(98, 79, 5, 0.4, 0.3));
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
  check_unchanged(base, make_dataset(perturbed_from(panel, base.splits.valid.begin), config),
                  base.train, config.lookback);
  check_unchanged(base, make_dataset(perturbed_from(panel, base.splits.test.begin), config),
                  base.valid, config.lookback);
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
  REQUIRE(!all.valid.empty());
  // Every k-th date from the first, k from that date's names times the days.
  const uint32_t first = all.valid.front().day;
  size_t names = 0;
  for (const Sample& s : all.valid) names += s.day == first;
  const size_t expected = names * (all.splits.valid.end - first);
  const size_t k =
      (expected + size_t(config.max_valid_samples) - 1) / size_t(config.max_valid_samples);
  CHECK(k >= 3);
  size_t on_stride = 0;
  for (const Sample& s : all.valid) on_stride += (s.day - first) % k == 0;
  CHECK(thin.valid.size() == on_stride);
  CHECK(thin.valid.size() > 0);
  CHECK(thin.valid.size() <= size_t(config.max_valid_samples) + names);
  for (const Sample& s : thin.valid) CHECK((s.day - first) % k == 0);
  CHECK(thin.test.size() == all.test.size());
}

TEST_CASE("splits: which validation dates are scored never depends on a later day's rows") {
  // A window's samples, then the same window with rows after day D dropped
  // or added (names delisting or listing later): the dates kept up to D, and their samples, are the
  // same.
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    const DayRange range{100, 100 + 20 + rng() % 80};
    const uint32_t tickers = 5 + uint32_t(rng() % 40);
    std::vector<Sample> base;
    for (uint32_t t = 0; t < tickers; ++t)
      for (size_t d = range.begin; d < range.end; ++d)
        if (rng() % 10 != 0) base.push_back({t, uint32_t(d)});
    const size_t cut = range.begin + 1 + rng() % (range.size() - 1);  // D = cut - 1
    std::vector<Sample> later = base;
    const size_t extra = rng() % 30;
    for (uint32_t t = tickers; t < tickers + extra; ++t)  // listed after D
      for (size_t d = cut; d < range.end; ++d) later.push_back({t, uint32_t(d)});
    later.erase(std::remove_if(later.begin(), later.end(),
                               [&](const Sample& s) { return s.day >= cut && rng() % 3 == 0; }),
                later.end());
    const int64_t max = int64_t(1 + rng() % base.size());
    auto upto = [&](const std::vector<Sample>& kept) {
      std::vector<std::pair<uint32_t, uint32_t>> out;
      for (const Sample& s : kept)
        if (s.day < cut) out.push_back({s.ticker, s.day});
      return out;
    };
    CAPTURE(round);
    CHECK(upto(thin_dates(base, range, max)) == upto(thin_dates(later, range, max)));
  }
}

TEST_CASE("splits: a cap below one date's names keeps one whole date") {
  // max_valid_samples under a single cross-section (hpo gpu calibrate caps
  // it at 256, and a panel may have 500 names a day) once never returned.
  TrainerConfig config = small_config(1);
  Dataset all = make_dataset(small_panel(), config);
  REQUIRE(!all.valid.empty());
  const uint32_t first = all.valid.front().day;
  size_t names = 0;
  for (const Sample& s : all.valid) names += s.day == first;
  REQUIRE(names > 1);
  config.max_valid_samples = int64_t(names - 1);
  Dataset thin = make_dataset(small_panel(), config);
  CHECK(thin.valid.size() == names);
  for (const Sample& s : thin.valid) CHECK(s.day == first);
  CHECK(thin.test.size() == all.test.size());
}

TrainerConfig cv_config(const char* scheme) {
  TrainerConfig c = small_config(2);
  c.cv_scheme = scheme;
  c.cv_folds = 3;
  c.cv_embargo_days = 2;
  return c;
}

size_t reach_of(const TrainerConfig& c) {
  return label_reach({c.horizon, label_entry_named(c.label_entry).value()});
}

// Fold k of `a` and `b` has the same samples, features and labels.
void check_fold_unchanged(const Dataset& a, const Dataset& b, size_t k, int lookback) {
  REQUIRE(b.folds.size() == a.folds.size());
  CHECK(b.folds[k].train.size() == a.folds[k].train.size());
  CHECK(b.folds[k].valid.size() == a.folds[k].valid.size());
  check_unchanged(a, b, a.folds[k].train, lookback);
  check_unchanged(a, b, a.folds[k].valid, lookback);
}

TEST_CASE(
    "splits: cross-validation: no fold's features or labels see a price after its end or in the "
    "test window") {
  for (const char* scheme : {"walk_forward", "purged_kfold"}) {
    CAPTURE(scheme);
    const TrainerConfig config = cv_config(scheme);
    const Panel panel = small_panel();
    const Dataset base = make_dataset(panel, config);
    REQUIRE(base.folds.size() == 3);
    // The test window: no fold moves.
    const Dataset test_moved = make_dataset(perturbed_from(panel, base.splits.test.begin), config);
    for (size_t k = 0; k < base.folds.size(); ++k)
      check_fold_unchanged(base, test_moved, k, config.lookback);
    for (size_t k = 0; k < base.folds.size(); ++k) {
      CAPTURE(k);
      const Fold& f = base.folds[k].days;
      const size_t end = f.last_day_read(reach_of(config));
      check_fold_unchanged(base, make_dataset(perturbed_from(panel, end + 1), config), k,
                           config.lookback);
      // The check has teeth: from the fold's last day on, one of its labels moves.
      const Dataset leaky = make_dataset(perturbed_from(panel, end), config);
      std::vector<Sample> fold_samples = base.folds[k].train;
      fold_samples.insert(fold_samples.end(), base.folds[k].valid.begin(),
                          base.folds[k].valid.end());
      size_t changed = 0;
      for (const Sample& s : fold_samples) {
        size_t c = base.features.cell(s.ticker, s.day);
        changed += !same(base.features.label[c], leaky.features.label[c]);
      }
      CHECK(changed > 0);
      // Purging: moving every price from the validation block's first day on
      // moves no label of the training days before it.
      const Dataset from_valid = make_dataset(perturbed_from(panel, f.valid.begin), config);
      std::vector<Sample> before;
      for (const Sample& s : base.folds[k].train)
        if (s.day < f.valid.begin) before.push_back(s);
      check_unchanged(base, from_valid, before, config.lookback);
    }
  }
}

// The valid series line of a report: date -> (net return, RankIC).
std::map<std::string, std::pair<double, double>> valid_series(const std::string& report) {
  std::map<std::string, std::pair<double, double>> out;
  std::istringstream lines(report);
  std::string line;
  while (std::getline(lines, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j["type"] != "series" || j["split"] != "valid") continue;
    for (size_t i = 0; i < j["dates"].size(); ++i)
      out[j["dates"][i].get<std::string>()] = {j["returns"][i].get<double>(),
                                               j["rank_ic"][i].get<double>()};
  }
  return out;
}

struct CvRun {
  Metrics final;
  std::map<std::string, std::pair<double, double>> series;
};

CvRun train_cv(const TrainerConfig& config, const Dataset& data) {
  testing::TempDir dir;
  std::ostringstream log;
  TrainOptions options;
  options.report_path = dir.file("report.jsonl");
  options.log = &log;
  const TrainResult r = train(config, RuntimeSettings{}, data, options);
  REQUIRE(r.exit_code == kExitOk);
  return {r.final_metrics, valid_series(testing::read_file(options.report_path))};
}

TEST_CASE(
    "splits: walk-forward: a fold's predictions and metrics do not move when later prices do") {
  TrainerConfig config = cv_config("walk_forward");
  config.device = "cpu";  // bitwise equality holds on CPU
  config.model = "mlp";
  config.hidden_size = 8;
  config.layers = 1;
  config.batch_size = 64;
  config.max_train_samples = 256;
  config.epochs = 1;
  const Panel panel = small_panel();
  const Dataset base_data = make_dataset(panel, config);
  const CvRun base = train_cv(config, base_data);
  const size_t folds = base_data.folds.size();
  for (size_t k = 0; k + 1 < folds; ++k) {
    CAPTURE(k);
    const Fold& f = base_data.folds[k].days;
    const CvRun moved = train_cv(
        config, make_dataset(perturbed_from(panel, f.last_day_read(reach_of(config)) + 1), config));
    for (size_t j = 0; j <= k; ++j)
      for (const std::string name : {"val_rank_ic", "val_sharpe_net"}) {
        const std::string key = "fold_" + std::to_string(j) + "_" + name;
        CAPTURE(key);
        CHECK(moved.final.at(key) == base.final.at(key));
      }
    // Every validation day of folds 0..k keeps its return and RankIC.
    const std::string last_date = base_data.dates[f.valid.end - 1];
    size_t compared = 0;
    for (const auto& [date, values] : base.series) {
      if (date > last_date) break;
      REQUIRE(moved.series.count(date));
      CHECK(moved.series.at(date) == values);
      ++compared;
    }
    CHECK(compared > 0);
    // Teeth: the last fold trains and validates on moved prices.
    const std::string last = "fold_" + std::to_string(folds - 1) + "_val_rank_ic";
    CHECK(moved.final.at(last) != base.final.at(last));
  }
}

}  // namespace
}  // namespace hpo::trainer
