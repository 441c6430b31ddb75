#include "hpo/run/progress.h"

#include <doctest/doctest.h>

#include <sstream>

namespace hpo {
namespace {

TEST_CASE("plain-line progress counts trials and tracks the best by direction") {
  std::ostringstream out;
  Progress p(out, /*tty=*/false, 3, "val_rank_ic", Direction::kMaximize);
  p.seed_best(0.02, 0);
  p.trial_started(1, "lr=0.001");
  p.trial_finished(1, TrialState::kComplete, 0.05, "", 12);
  p.trial_started(2, "lr=0.01");
  p.trial_finished(2, TrialState::kFail, std::nullopt, "trainer failed: exit code 1", 3);
  p.trial_started(3, "lr=0.1");
  p.trial_finished(3, TrialState::kComplete, 0.04, "", 5);
  const std::string s = out.str();
  CHECK(s.find("trial 1 started: lr=0.001 | 0/3 done, 1 running, 0 failed | best val_rank_ic 0.02 "
               "(trial 0)") != std::string::npos);
  CHECK(s.find("trial 1 COMPLETE val_rank_ic=0.05 (new best) in 12s | 1/3 done, 0 running, 0 "
               "failed | best val_rank_ic 0.05 (trial 1)") != std::string::npos);
  CHECK(s.find("trial 2 FAIL: trainer failed: exit code 1 in 3s | 2/3 done, 0 running, 1 failed") !=
        std::string::npos);
  CHECK(s.find("trial 3 COMPLETE val_rank_ic=0.04 in 5s") != std::string::npos);  // not a new best
  CHECK(s.find("3/3 done, 0 running, 1 failed | best val_rank_ic 0.05 (trial 1)") !=
        std::string::npos);
  CHECK(s.find('\r') == std::string::npos);
}

TEST_CASE("a trial that breaks a constraint is never the best, however good its value") {
  std::ostringstream out;
  Progress p(out, false, 3, "score", Direction::kMaximize);
  p.trial_started(0, "");
  p.trial_finished(0, TrialState::kComplete, 0.9, "", 1, {}, /*feasible=*/false);
  p.trial_started(1, "");
  p.trial_finished(1, TrialState::kComplete, 0.1, "", 1);
  p.trial_started(2, "");
  p.trial_finished(2, TrialState::kComplete, 0.5, "", 1, {}, false);
  const std::string s = out.str();
  CHECK(s.find("trial 0 COMPLETE score=0.9 (infeasible: breaks a constraint) in 1s | 1/3 done, 0 "
               "running, 0 failed | best score -") != std::string::npos);
  CHECK(s.find("trial 1 COMPLETE score=0.1 (new best)") != std::string::npos);
  CHECK(s.find("3/3 done, 0 running, 0 failed | best score 0.1 (trial 1)") != std::string::npos);
}

TEST_CASE("an interrupted trial is neither done nor failed") {
  std::ostringstream out;
  Progress p(out, false, 2, "m", Direction::kMaximize);
  p.trial_started(0, "");
  p.trial_finished(0, TrialState::kRunning, std::nullopt, "interrupted", 65);
  CHECK(out.str().find("trial 0 interrupted after 1m05s; left RUNNING for the next run to resume | "
                       "0/2 done, 0 running, 0 failed") != std::string::npos);
}

TEST_CASE("with several objectives a trial shows each and no trial is called the best") {
  std::ostringstream out;
  Progress p(out, false, 2, "val_rank_ic", Direction::kMaximize);
  p.several_objectives({"val_rank_ic", "val_turnover"});
  p.trial_started(0, "");
  p.trial_finished(0, TrialState::kComplete, 0.05, "", 1, {0.05, 0.3});
  const std::string s = out.str();
  CHECK(s.find("trial 0 COMPLETE val_rank_ic=0.05 val_turnover=0.3 in 1s | 1/2 done") !=
        std::string::npos);
  CHECK(s.find("best") == std::string::npos);
}

TEST_CASE("minimizing studies keep the smallest value") {
  std::ostringstream out;
  Progress p(out, false, 2, "loss", Direction::kMinimize);
  p.trial_started(0, "");
  p.trial_finished(0, TrialState::kComplete, 3.0, "", 1);
  p.trial_started(1, "");
  p.trial_finished(1, TrialState::kComplete, 2.0, "", 1);
  CHECK(out.str().find("best loss 2 (trial 1)") != std::string::npos);
}

TEST_CASE("terminal progress redraws one status line in place") {
  std::ostringstream out;
  Progress p(out, /*tty=*/true, 2, "m", Direction::kMaximize);
  p.tick();
  p.trial_started(0, "x=1");
  p.finish();
  const std::string s = out.str();
  CHECK(s.rfind("\r\033[K0/2 done, 0 running, 0 failed", 0) == 0);
  CHECK(s.find("\r\033[Ktrial 0 started: x=1\n") != std::string::npos);
  CHECK(s.back() == '\n');
}

TEST_CASE("durations read as people write them") {
  CHECK(Progress::format_duration(5.4) == "5s");
  CHECK(Progress::format_duration(187) == "3m07s");
  CHECK(Progress::format_duration(3720) == "1h02m");
}

}  // namespace
}  // namespace hpo
