// How a finished trainer run becomes a trial state: the rules in one place,
// free of processes and storage, so each can be tested on its own.
#ifndef HPO_RUN_VERDICT_H_
#define HPO_RUN_VERDICT_H_

#include <optional>
#include <string>

#include "hpo/launch/process.h"
#include "hpo/launch/report_reader.h"
#include "samplers/trial_view.h"

namespace hpo {

// What was observed of one trainer run.
struct TrainerRun {
  std::optional<ExitStatus> exit;  // empty if it never started
  std::string launch_error;  // why it never started
  bool timed_out = false;  // hit the per-trial timeout
  double timeout_s = 0;
  std::optional<Metrics> final_metrics;
  int invalid_lines = 0;  // garbage on the report channel
  std::string first_invalid;  // the first such line's problem
  std::optional<int> pruned_at;  // the step at which the pruner stopped it
  std::optional<double> last_intermediate;  // the objective at the last reported step
  std::string oom_line;  // the log line that reported running out of memory
  std::string no_cuda_line;  // the log line that said CUDA was unusable (no_cuda.h)
  std::string bad_env_line;  // the log line that refused the environment (no_cuda.h)
  // Stopped by hpo after this many seconds without a heartbeat (beat_watch.h).
  std::optional<double> cut_off_s;
  // Whether the kernel's count of OOM kills moved while it ran (oom_kills.h);
  // nullopt where it cannot be read, or a user-space OOM killer runs.
  std::optional<bool> oom_killer_struck;
};

struct Verdict {
  TrialState state = TrialState::kFail;
  std::optional<double> value;  // the objective, for COMPLETE
  std::string reason;  // why it failed; empty when COMPLETE
  bool oom = false;  // failed for lack of memory: reason starts "oom: "
  bool no_cuda = false;  // could not use the GPU it was given: reason starts "no_cuda: "
  bool bad_env = false;  // refused the environment of every trial: reason starts "bad_env: "
};

// The rules: a trainer that could not start, timed out, exited non-zero or
// by a signal, reported no final metrics, or no finite-or-infinite value for
// the objective, FAILs with that reason; otherwise the trial is COMPLETE.
// A NaN objective fails, as in Optuna. Garbage lines alone do not fail a
// trial that otherwise reported properly. A pruned trial is PRUNED however
// its trainer ended, with its last intermediate value (unless NaN) as its
// value, as Optuna records it. A crash whose log says it ran out of memory,
// or a SIGKILL hpo did not send (the kernel's OOM killer, most likely, unless
// its count of kills did not move meanwhile), is an "oom" failure; one whose log says it could not
// use CUDA, a "no_cuda" failure, and one whose log refuses the environment, a
// "bad_env" failure (no_cuda.h). A run hpo stopped because its heartbeats failed FAILs
// as cut off from the database, unless it completed all the same.
Verdict judge(const TrainerRun& run, const std::string& objective_metric);

}  // namespace hpo

#endif  // HPO_RUN_VERDICT_H_
