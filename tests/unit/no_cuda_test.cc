#include "hpo/run/no_cuda.h"

#include <doctest/doctest.h>

#include "hpo/run/verdict.h"

namespace hpo {
namespace {

TEST_CASE("no_cuda: the marker's line is found wherever it stands") {
  const std::string log =
      "setting device=auto with HPO_DEVICE=cuda\n"
      "hpo-trainer: error: no_cuda: HPO_DEVICE=cuda (hpo's GPU slot), but a CPU-only build  \r\n"
      "later: no_cuda: a second line\n";
  CHECK(find_no_cuda_line(log) ==
        "no_cuda: HPO_DEVICE=cuda (hpo's GPU slot), but a CPU-only build");
  CHECK(find_no_cuda_line("RuntimeError: CUDA error: out of memory\nno cuda here\n").empty());
  CHECK(find_no_cuda_line("").empty());
  CHECK(find_no_cuda_line("no_cuda:" + std::string(1000, 'x')).size() == 303);  // 300 + "..."
}

TEST_CASE("no_cuda: a crash that says so is a no_cuda failure, not oom or a plain one") {
  TrainerRun run;
  run.exit = ExitStatus{false, 2, 0};
  run.no_cuda_line = "no_cuda: a CPU-only build";
  run.oom_line = "out of memory";  // the no_cuda line names the cause
  const Verdict v = judge(run, "m");
  CHECK(v.state == TrialState::kFail);
  CHECK(v.no_cuda);
  CHECK_FALSE(v.oom);
  CHECK(v.reason == "no_cuda: a CPU-only build (exit code 2)");
  CHECK(is_no_cuda(v.reason));
  CHECK_FALSE(is_no_cuda("trainer failed: exit code 2; no_cuda: later in the text"));

  run.exit = ExitStatus{};  // exited 0: the line is only logged, the run is judged as usual
  run.final_metrics = Metrics{{"m", 1.0}};
  CHECK(judge(run, "m").state == TrialState::kComplete);
}

}  // namespace
}  // namespace hpo
