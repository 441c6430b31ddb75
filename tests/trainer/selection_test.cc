// epoch_select_frac keeps the days that pick the epoch apart from the days
// whose scores and daily series are reported (trainer/selection.h).
#include "trainer/selection.h"

#include <sstream>

#include "tests/trainer/test_util.h"
#include "tests/trainer/tiny_config.h"
#include "trainer/dataset.h"
#include "trainer/error.h"
#include "trainer/trainer.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

namespace hpo::trainer {
namespace {

uint32_t first_day(const std::vector<Sample>& samples) {
  uint32_t d = UINT32_MAX;
  for (const Sample& s : samples) d = std::min(d, s.day);
  return d;
}

uint32_t last_day(const std::vector<Sample>& samples) {
  uint32_t d = 0;
  for (const Sample& s : samples) d = std::max(d, s.day);
  return d;
}

// Every picking day's label ends before the first reported day.
void check_apart(const std::vector<Sample>& select, const std::vector<Sample>& valid, size_t reach,
                 const DayRange& block) {
  REQUIRE_FALSE(select.empty());
  REQUIRE_FALSE(valid.empty());
  CHECK(first_day(select) == block.begin);
  CHECK(last_day(select) + reach < first_day(valid));
  CHECK(last_day(valid) == block.end - 1);
}

TEST_CASE("selection: the first share of a validation block picks, the rest after a gap reports") {
  const ValidationParts p = split_validation({100, 200}, 2, 0.25);
  CHECK(p.select.begin == 100);
  CHECK(p.select.end == 125);
  CHECK(p.report.begin == 127);
  CHECK(p.report.end == 200);
  CHECK_THROWS_AS(split_validation({100, 103}, 2, 0.5), UsageError);
}

// Two epochs of the tiny run, with a two-day label (reach 3) and the
// epoch picked on the first half of each validation block.
TrainerConfig small_config() {
  TrainerConfig c = testing::tiny_config();
  c.epochs = 2;
  c.horizon = 2;
  c.epoch_select_frac = 0.5;
  return c;
}

TEST_CASE("selection: datasets split each validation block, folds included") {
  TrainerConfig config = small_config();
  const Dataset single = load_dataset(config);
  const size_t reach = label_reach(single.features.label_spec);
  check_apart(single.select, single.valid, reach, single.splits.valid);
  config.cv_scheme = "walk_forward";
  config.cv_folds = 2;
  const Dataset cv = load_dataset(config);
  REQUIRE(cv.folds.size() == 2);
  for (const FoldData& f : cv.folds) check_apart(f.select, f.valid, reach, f.days.valid);
  // Off by default: every validation day picks and reports.
  config = small_config();
  config.epoch_select_frac = 0;
  const Dataset off = load_dataset(config);
  CHECK(off.select.empty());
  CHECK(first_day(off.valid) == off.splits.valid.begin);
}

std::string run_report(const TrainerConfig& config, const Dataset& data) {
  testing::TempDir dir;
  std::ostringstream log;
  TrainOptions options;
  options.out_dir = dir.path();
  options.report_path = dir.file("report.jsonl");
  options.log = &log;
  RuntimeSettings settings;
  settings.num_workers = 1;
  REQUIRE(train(config, settings, data, options).exit_code == kExitOk);
  return testing::read_file(options.report_path);
}

// The number after "key": in a JSON line.
std::string field(const std::string& line, const std::string& key) {
  const size_t at = line.find("\"" + key + "\":");
  REQUIRE(at != std::string::npos);
  const size_t begin = at + key.size() + 3;
  return line.substr(begin, line.find_first_of(",}", begin) - begin);
}

// The epochs are judged on the first part only: each epoch's validation
// scores are those of a run validating on exactly those days. The valid
// series and val_* come from the rest, none of whose days picked the epoch.
TEST_CASE("selection: the epoch is picked on the first part, the series scores only the rest") {
  const TrainerConfig config = small_config();
  const Dataset data = load_dataset(config);
  const std::string report = run_report(config, data);
  TrainerConfig plain = config;
  plain.epoch_select_frac = 0;
  Dataset on_select = data;
  on_select.valid = data.select;
  on_select.select.clear();
  const std::vector<std::string> epochs = testing::report_lines(report, "epoch"),
                                 want =
                                     testing::report_lines(run_report(plain, on_select), "epoch");
  REQUIRE(epochs.size() == want.size());
  for (size_t e = 0; e < epochs.size(); ++e) {
    CAPTURE(e);
    for (const char* key : {"val_rank_ic", "val_loss", "val_sharpe_net"})
      CHECK(field(epochs[e], key) == field(want[e], key));
  }
  const std::string series = testing::series_line(report, "valid");
  REQUIRE_FALSE(series.empty());
  for (const Sample& s : data.select) CHECK(series.find(data.dates[s.day]) == std::string::npos);
  CHECK(series.find(data.dates[first_day(data.valid)]) != std::string::npos);
  CHECK(series.find(data.dates[last_day(data.valid)]) != std::string::npos);
  // val_rank_ic, the objective, is the mean of that series' daily RankIC.
  const size_t open = series.find("\"rank_ic\":[") + 11;
  std::istringstream daily(series.substr(open, series.find(']', open) - open));
  double sum = 0;
  int n = 0;
  for (std::string x; std::getline(daily, x, ',');) sum += std::stod(x), ++n;
  const std::string final_line = testing::report_lines(report, "final").at(0);
  CHECK(std::stod(field(final_line, "val_rank_ic")) == doctest::Approx(sum / n));
}

}  // namespace
}  // namespace hpo::trainer
