#include "trainer/cv.h"

#include <doctest/doctest.h>

#include "tests/trainer/test_util.h"
#include "trainer/config.h"
#include "trainer/error.h"

namespace hpo::trainer {
namespace {

// Every fold: training and validation non-empty; no training label reads a
// price on or after the validation block's first day (purge) within the
// embargo; nothing reads the test window.
void check_layout(const std::string& scheme, size_t reach, int embargo) {
  const Splits splits = make_splits(1000, 79, reach, 0.6, 0.2);
  const std::vector<Fold> folds = make_folds(splits, reach, {scheme, 4, embargo});
  REQUIRE(folds.size() == 4);
  size_t previous_end = 0;
  for (const Fold& f : folds) {
    CHECK(f.valid.size() > 0);
    CHECK(f.valid.begin >= previous_end);  // blocks in time order, disjoint
    previous_end = f.valid.end;
    CHECK(f.last_day_read(reach) < splits.test.begin);
    REQUIRE(!f.train.empty());
    for (const DayRange& r : f.train) {
      CHECK(r.size() > 0);
      CHECK(r.begin >= splits.train.begin);
      if (r.end <= f.valid.begin) {
        // Training before validation: the last label ends before it starts.
        CHECK(r.end - 1 + reach < f.valid.begin);
        if (scheme == "walk_forward") CHECK(r.end - 1 + reach + size_t(embargo) < f.valid.begin);
      } else {
        CHECK(scheme == "purged_kfold");
        // After validation: its labels' reach, then the embargo.
        CHECK(r.begin >= f.valid.end + reach + size_t(embargo));
      }
    }
  }
  CHECK(folds.back().valid.end == splits.valid.end);
}

TEST_CASE(
    "cv: folds respect time, purge the label reach and embargo, and never touch the test window") {
  for (const char* scheme : {"walk_forward", "purged_kfold"})
    for (size_t reach : {1, 2, 6})
      for (int embargo : {0, 5}) {
        CAPTURE(scheme);
        CAPTURE(reach);
        CAPTURE(embargo);
        check_layout(scheme, reach, embargo);
      }
}

TEST_CASE("cv: walk_forward trains on everything before each block; purged_kfold around it") {
  const Splits splits = make_splits(1000, 79, 2, 0.6, 0.2);
  const std::vector<Fold> wf = make_folds(splits, 2, {"walk_forward", 4, 3});
  // Five blocks of (splits.valid.end - 79) / 5 days; fold k validates on block k + 1.
  const size_t block = (splits.valid.end - 79) / 5;
  CHECK(wf[0].valid.begin == 79 + block);
  CHECK(wf[0].train.size() == 1);
  CHECK(wf[0].train[0].begin == 79);
  CHECK(wf[0].train[0].end == 79 + block - 2 - 3);
  CHECK(wf[3].train[0].end == wf[3].valid.begin - 5);  // expanding window
  const std::vector<Fold> kf = make_folds(splits, 2, {"purged_kfold", 4, 3});
  CHECK(kf[0].valid.begin == 79);
  CHECK(kf[0].train.size() == 1);  // only after
  CHECK(kf[1].train.size() == 2);  // before and after
  CHECK(kf[3].train.size() == 1);  // only before
}

TEST_CASE("cv: too many folds for the days is a clear error") {
  const Splits splits = make_splits(200, 79, 2, 0.6, 0.2);
  try {
    make_folds(splits, 2, {"walk_forward", 50, 30});
    FAIL("expected a UsageError");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("lower cv_folds or cv_embargo_days") != std::string::npos);
  }
}

std::string error_of(const std::string& text) {
  return testing::usage_error("config.yaml", text,
                              [](const std::string& path) { load_config(path); });
}

TEST_CASE("cv config: the map form, the flat keys, and clear errors") {
  testing::TempDir dir;
  TrainerConfig c =
      load_config(dir.write("a.yaml", "cv: {scheme: purged_kfold, folds: 5, embargo_days: 2}\n"));
  CHECK(c.cv_scheme == "purged_kfold");
  CHECK(c.cv_folds == 5);
  CHECK(c.cv_embargo_days == 2);
  c = load_config(dir.write("b.yaml", "cv_scheme: walk_forward\ncv_folds: 3\ncost_bps: 5\n"));
  CHECK(c.cv_scheme == "walk_forward");
  CHECK(c.cv_folds == 3);
  CHECK(c.cv_embargo_days == 5);  // the default
  CHECK(c.cost_bps == 5);
  CHECK(TrainerConfig{}.cv_scheme == "none");  // off by default
  CHECK(error_of("cv: {scheme: kfold}\n") ==
        ": key 'cv_scheme': must be \"none\", \"walk_forward\" or \"purged_kfold\"");
  CHECK(error_of("cv: {scheme: walk_forward, fold: 3}\n") ==
        ": key 'cv.fold': unknown; expected scheme, folds or embargo_days");
  CHECK(error_of("cv: walk_forward\n").find(": key 'cv': expected a map") == 0);
  CHECK(error_of("cv: {folds: many}\n") == ": key 'cv.folds': expected an integer, got 'many'");
  CHECK(error_of("cv_folds: 1\n") == ": key 'cv_folds': must be an integer from 2 to 50");
  CHECK(error_of("cv_embargo_days: -1\n") == ": key 'cv_embargo_days': must be >= 0");
  CHECK(error_of("cost_bps: -3\n") == ": key 'cost_bps': must be >= 0");
  CHECK(error_of("signal_strength: strong\n") ==
        ": key 'signal_strength': must be \"easy\", \"realistic\", \"noise\" or a number >= 0");
  CHECK(load_config(dir.write("c.yaml", "signal_strength: 0.05\n")).signal_strength == "0.05");
}

}  // namespace
}  // namespace hpo::trainer
