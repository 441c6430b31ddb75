#include "hpo/report/host_summary.h"

#include <doctest/doctest.h>

#include "hpo/report/status_table.h"
#include "hpo/report/trial_json.h"
#include "hpo/run/owner.h"

namespace hpo {
namespace {

TrialRecord trial(int number, TrialState state, const std::string& host, const std::string& slot,
                  double seconds) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  if (!host.empty()) {
    Owner o;
    o.host = host;
    o.pid = 100 + number;
    t.system_attrs[kOwnerAttr] = o.to_json();
  }
  if (!slot.empty()) t.system_attrs[kSlotAttr] = slot;
  if (seconds >= 0) t.system_attrs["hpo:duration_s"] = seconds;
  return t;
}

StudyView two_hosts() {
  StudyView view;
  view.study.name = "s";
  view.trials = {trial(0, TrialState::kComplete, "node-a", "gpu0.w0", 10),
                 trial(1, TrialState::kComplete, "node-b", "gpu1.w0", 30),
                 trial(2, TrialState::kFail, "node-a", "gpu0.w1", 20),
                 trial(3, TrialState::kRunning, "node-b", "gpu1.w0", 99),
                 trial(4, TrialState::kComplete, "", "", 5)};
  return view;
}

TEST_CASE("each host's trials are counted by state; the mean duration is of its finished trials") {
  const auto s = host_summaries(two_hosts());
  REQUIRE(s.size() == 3);
  CHECK(s[0].host == "");  // Optuna's trial: no hpo owner
  CHECK(s[1].host == "node-a");
  CHECK(s[1].counts.at(TrialState::kComplete) == 1);
  CHECK(s[1].counts.at(TrialState::kFail) == 1);
  CHECK(s[1].timed == 2);
  CHECK(s[1].mean_seconds == doctest::Approx(15));
  CHECK(s[2].host == "node-b");
  CHECK(s[2].counts.at(TrialState::kRunning) == 1);
  CHECK(s[2].timed == 1);  // the running trial's time is not a duration yet
  CHECK(s[2].mean_seconds == doctest::Approx(30));
}

TEST_CASE("status --json names each trial's host and slot, and sums up the hosts") {
  const auto j = study_json(two_hosts());
  CHECK(j["trials"][1]["host"] == "node-b");
  CHECK(j["trials"][1]["slot"] == "gpu1.w0");
  CHECK(j["trials"][4]["host"].is_null());
  CHECK(j["trials"][4]["slot"].is_null());
  REQUIRE(j["hosts"].size() == 3);
  CHECK(j["hosts"][1]["host"] == "node-a");
  CHECK(j["hosts"][1]["counts"]["COMPLETE"] == 1);
  CHECK(j["hosts"][1]["counts"]["FAIL"] == 1);
  CHECK(j["hosts"][1]["counts"]["RUNNING"] == 0);
  CHECK(j["hosts"][1]["mean_duration_s"] == doctest::Approx(15));
}

TEST_CASE("the status table has host and slot columns and a line per host") {
  const std::string table = status_table(two_hosts());
  CHECK(table.find("#  state     host    slot") != std::string::npos);
  CHECK(table.find("gpu1.w0") != std::string::npos);
  CHECK(table.find("by host:") != std::string::npos);
  CHECK(table.find("node-a       1 COMPLETE, 1 FAIL") != std::string::npos);
}

}  // namespace
}  // namespace hpo
