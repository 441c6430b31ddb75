// hpo status's time split: where a trial's time went, as its trainer reported
// it (hpo-trainer's load_s, data_s, train_s, valid_s, test_s, and on CUDA
// cuda_init_s), all five parts or none.
#include <doctest/doctest.h>

#include <string>

#include "hpo/report/status_table.h"
#include "hpo/report/study_view.h"

namespace hpo {
namespace {

TrialRecord timed_trial(int number, nlohmann::json parts) {
  TrialRecord t;
  t.number = number;
  t.state = TrialState::kComplete;
  t.value = 0.1;
  for (const auto& [key, seconds] : parts.items()) t.user_attrs[key] = seconds;
  return t;
}

const nlohmann::json kFive = {
    {"load_s", 0.41}, {"data_s", 1.02}, {"train_s", 0.55}, {"valid_s", 0.12}, {"test_s", 0.3}};

TEST_CASE("the time split is the five parts in order, then CUDA's start") {
  const auto split = time_split(timed_trial(0, kFive));
  REQUIRE(split.size() == 5);
  CHECK(split.front().first == "load_s");
  CHECK(split.back().first == "test_s");
  nlohmann::json cuda = kFive;
  cuda["cuda_init_s"] = 0.2;
  CHECK(time_split(timed_trial(0, cuda)).back() ==
        std::pair<std::string, double>{"cuda_init_s", 0.2});
  // A part missing, or not a number: no split at all, never a shifted one.
  for (const char* key : {"load_s", "valid_s", "test_s"}) {
    CAPTURE(key);
    nlohmann::json partial = kFive;
    partial.erase(key);
    CHECK(time_split(timed_trial(0, partial)).empty());
    partial[key] = "soon";
    CHECK(time_split(timed_trial(0, partial)).empty());
  }
}

TEST_CASE("hpo status shows the split in its own column, '-' for a trial without one") {
  StudyView view;
  view.study.name = "s";
  view.metrics = {"score"};
  nlohmann::json cuda = kFive;
  cuda["cuda_init_s"] = 0.2;
  nlohmann::json partial = kFive;
  partial.erase("data_s");
  view.trials = {timed_trial(0, kFive), timed_trial(1, cuda), timed_trial(2, partial)};
  const std::string table = status_table(view);
  INFO(table);
  CHECK(table.find("load/data/train/valid/test s") != std::string::npos);
  CHECK(table.find("0.41/1.02/0.55/0.12/0.30 ") != std::string::npos);
  CHECK(table.find("0.41/1.02/0.55/0.12/0.30 (CUDA 0.20)") != std::string::npos);
  // A study whose trainer reports no split gets no column.
  view.trials = {timed_trial(0, partial)};
  CHECK(status_table(view).find("load/data") == std::string::npos);
}

}  // namespace
}  // namespace hpo
