#include "hpo/run/verdict.h"

#include <signal.h>

#include <cmath>
#include <sstream>

namespace hpo {

namespace {

Verdict fail(std::string reason) {
  return Verdict{TrialState::kFail, std::nullopt, std::move(reason)};
}

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

// The rules for a run that was left to end on its own terms.
Verdict judge_run(const TrainerRun& run, const std::string& objective_metric) {
  if (!run.exit) return fail("could not start: " + run.launch_error);
  if (run.pruned_at) {
    Verdict v{TrialState::kPruned, std::nullopt,
              "pruned at step " + std::to_string(*run.pruned_at)};
    if (run.last_intermediate && !std::isnan(*run.last_intermediate))
      v.value = run.last_intermediate;
    return v;
  }
  if (run.timed_out) return fail("timeout: still running after " + seconds_text(run.timeout_s));
  if (!run.exit->success()) {
    Verdict v = fail("trainer failed: " + run.exit->describe());
    if (!run.no_cuda_line.empty()) {
      v.reason = run.no_cuda_line + " (" + run.exit->describe() + ")";
      v.no_cuda = true;
    } else if (!run.bad_env_line.empty()) {
      v.reason = run.bad_env_line + " (" + run.exit->describe() + ")";
      v.bad_env = true;
    } else if (!run.oom_line.empty()) {
      v.reason = "oom: " + run.oom_line + " (" + run.exit->describe() + ")";
      v.oom = true;
    } else if (run.exit->signaled && run.exit->signal == SIGKILL) {
      // Not hpo's SIGKILL: the OOM killer's, unless its count says otherwise.
      v.oom = run.oom_killer_struck != false;
      v.reason = v.oom
                     ? "oom: killed by SIGKILL, which hpo did not send (likely the kernel's "
                       "out-of-memory killer)"
                     : "trainer failed: killed by SIGKILL from outside hpo, and not by the "
                       "kernel's out-of-memory killer (its count of kills, /proc/vmstat "
                       "oom_kill, did not move; no user-space OOM killer runs): someone's kill -9";
    }
    return v;
  }
  if (!run.final_metrics) {
    std::string reason = "no final metrics reported";
    if (run.invalid_lines > 0) {
      reason += " (" + std::to_string(run.invalid_lines) +
                " invalid report line(s); first: " + run.first_invalid + ")";
    }
    return fail(reason);
  }
  const auto it = run.final_metrics->find(objective_metric);
  if (it == run.final_metrics->end()) {
    return fail("final metrics lack the objective '" + objective_metric + "'");
  }
  if (std::isnan(it->second)) return fail("objective '" + objective_metric + "' is NaN");
  return Verdict{TrialState::kComplete, it->second, ""};
}

}  // namespace

Verdict judge(const TrainerRun& run, const std::string& objective_metric) {
  Verdict v = judge_run(run, objective_metric);
  // hpo stopped it (its SIGKILL is no OOM), unless it completed all the same.
  if (run.cut_off_s && v.state != TrialState::kComplete) {
    return fail(
        "cut off from the database: no heartbeat got in for " + seconds_text(*run.cut_off_s) +
        ", past the grace after which other hosts take a trial over; its trainer was stopped");
  }
  return v;
}

}  // namespace hpo
