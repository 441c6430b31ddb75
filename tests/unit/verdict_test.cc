#include "hpo/run/verdict.h"

#include <doctest/doctest.h>
#include <signal.h>

#include <cmath>
#include <limits>

namespace hpo {
namespace {

TrainerRun clean_run(double objective) {
  TrainerRun run;
  run.exit = ExitStatus{};
  run.final_metrics = Metrics{{"val_rank_ic", objective}, {"val_sharpe", 1.5}};
  return run;
}

TEST_CASE("a clean exit with the objective is COMPLETE with its value") {
  const auto v = judge(clean_run(0.042), "val_rank_ic");
  CHECK(v.state == TrialState::kComplete);
  CHECK(v.value == 0.042);
  CHECK(v.reason.empty());
}

TEST_CASE("each failure has its own reason") {
  TrainerRun never;
  never.launch_error = "No such file or directory";
  CHECK(judge(never, "m").reason == "could not start: No such file or directory");

  auto timed_out = clean_run(0.1);
  timed_out.exit = ExitStatus{true, 0, 9};
  timed_out.timed_out = true;
  timed_out.timeout_s = 2.5;
  CHECK(judge(timed_out, "val_rank_ic").reason == "timeout: still running after 2.5 s");

  auto crashed = clean_run(0.1);
  crashed.exit = ExitStatus{false, 3, 0};
  CHECK(judge(crashed, "val_rank_ic").reason == "trainer failed: exit code 3");

  auto silent = clean_run(0.1);
  silent.final_metrics.reset();
  silent.invalid_lines = 2;
  silent.first_invalid = "not JSON";
  CHECK(judge(silent, "val_rank_ic").reason ==
        "no final metrics reported (2 invalid report line(s); first: not JSON)");

  CHECK(judge(clean_run(0.1), "test_rank_ic").reason ==
        "final metrics lack the objective 'test_rank_ic'");
  CHECK(judge(clean_run(std::nan("")), "val_rank_ic").reason == "objective 'val_rank_ic' is NaN");
  for (const auto& run : {never, timed_out, crashed, silent}) {
    CHECK(judge(run, "val_rank_ic").state == TrialState::kFail);
  }
}

TEST_CASE("an infinite objective is a value, as in Optuna; garbage lines alone do not fail") {
  auto run = clean_run(-std::numeric_limits<double>::infinity());
  run.invalid_lines = 4;
  const auto v = judge(run, "val_rank_ic");
  CHECK(v.state == TrialState::kComplete);
  CHECK(std::isinf(*v.value));
}

}  // namespace
}  // namespace hpo

namespace hpo {
namespace {

TEST_CASE("a trainer hpo stopped when cut off from the database FAILs as such, never as an OOM") {
  TrainerRun killed;
  killed.exit = ExitStatus{true, 0, SIGKILL};
  killed.cut_off_s = 2.5;
  const auto v = judge(killed, "val_rank_ic");
  CHECK(v.state == TrialState::kFail);
  CHECK_FALSE(v.oom);
  CHECK(v.reason.find("cut off from the database: no heartbeat got in for 2.5 s") == 0);

  auto finished = clean_run(0.2);  // it completed before the SIGTERM took
  finished.cut_off_s = 2.5;
  CHECK(judge(finished, "val_rank_ic").state == TrialState::kComplete);
}

}  // namespace
}  // namespace hpo
