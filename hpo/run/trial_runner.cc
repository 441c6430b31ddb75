#include "hpo/run/trial_runner.h"

#include <signal.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "hpo/launch/process.h"
#include "hpo/launch/report_reader.h"
#include "hpo/run/atomic_file.h"
#include "hpo/run/verdict.h"

namespace hpo {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kStderrTailBytes = 4096;

// JSON cannot hold NaN or infinities; store those as strings.
nlohmann::json metric_json(double v) {
  if (std::isfinite(v)) return v;
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

nlohmann::json metrics_json(const Metrics& metrics) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : metrics) j[name] = metric_json(value);
  return j;
}

// Turns report lines into stored intermediate values, the per-epoch curve
// and the final metrics, as they arrive.
class Watch {
 public:
  Watch(ReportReader& reader, Storage& storage, int64_t trial_id, const std::string& metric)
      : reader_(reader), storage_(storage), trial_id_(trial_id), metric_(metric) {}

  // Returns true when a new intermediate value of the objective arrived.
  bool drain(bool at_eof, TrainerRun& run) {
    bool fresh = false;
    for (auto& event : reader_.read_new(at_eof)) {
      switch (event.kind) {
        case ReportEvent::Kind::kEpoch: {
          curve_.push_back({{"step", event.step}, {"metrics", metrics_json(event.metrics)}});
          const auto it = event.metrics.find(metric_);
          if (it != event.metrics.end() && !run.pruned_at) {
            storage_.set_intermediate_value(trial_id_, event.step, it->second);
            run.last_intermediate = it->second;
            last_step_ = event.step;
            fresh = true;
          }
          break;
        }
        case ReportEvent::Kind::kFinal:
          run.final_metrics = std::move(event.metrics);
          break;
        case ReportEvent::Kind::kInvalid:
          if (run.invalid_lines++ == 0) {
            run.first_invalid = "line " + std::to_string(event.line) + ": " + event.problem;
          }
          break;
      }
    }
    return fresh;
  }

  const nlohmann::json& curve() const { return curve_; }
  int last_step() const { return last_step_; }

 private:
  ReportReader& reader_;
  Storage& storage_;
  int64_t trial_id_;
  const std::string& metric_;
  nlohmann::json curve_ = nlohmann::json::array();
  int last_step_ = -1;
};

}  // namespace

std::string file_tail(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<size_t>(in.tellg());
  const size_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string text(size - start, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (start > 0) {
    const auto newline = text.find('\n');
    if (newline != std::string::npos && newline + 1 < text.size()) text.erase(0, newline + 1);
  }
  return text;
}

TrialResult TrialRunner::run(const TrialPlan& plan) {
  const auto started = Clock::now();
  const fs::path dir(plan.trial_dir);
  fs::create_directories(dir);
  write_file_atomically((dir / kConfigFile).string(), plan.config.dump(2) + "\n");
  // A trial run again (its first owner died) starts a fresh report channel.
  fs::remove(dir / kReportFile);

  LaunchSpec spec;
  spec.argv = plan.argv;
  spec.env = plan.env;
  spec.stdout_path = (dir / kStdoutFile).string();
  spec.stderr_path = (dir / kStderrFile).string();

  TrainerRun run;
  run.timeout_s = trainer_.timeout_s;
  ReportReader reader((dir / kReportFile).string());
  bool interrupted = false;
  nlohmann::json curve = nlohmann::json::array();
  try {
    Process process(spec);
    Watch watch(reader, storage_, plan.trial_id, metric_);
    const auto deadline = trainer_.timeout_s > 0
                              ? started + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(trainer_.timeout_s))
                              : Clock::time_point::max();
    const auto grace = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(trainer_.grace_period_s));
    std::optional<Clock::time_point> kill_at;  // set once SIGTERM was sent
    // Sleeps start at 1 ms and back off to 50 ms: a fast trainer costs
    // little latency, a slow one little CPU.
    auto nap = std::chrono::microseconds(1000);
    while (true) {
      if ((run.exit = process.poll())) break;
      const bool fresh = watch.drain(false, run);
      const auto now = Clock::now();
      if (fresh && !kill_at && should_prune_ && should_prune_(plan)) {
        // Stopped by the pruner: SIGTERM lets the trainer checkpoint and exit.
        run.pruned_at = watch.last_step();
        process.signal_group(SIGTERM);
        kill_at = now + grace;
      } else if (stop_.load() >= kStopNow) {
        interrupted = true;
        process.signal_group(SIGKILL);
      } else if (!kill_at && (stop_.load() >= kStopGracefully || now >= deadline)) {
        (now >= deadline ? run.timed_out : interrupted) = true;
        process.signal_group(SIGTERM);
        kill_at = now + grace;
      } else if (kill_at && now >= *kill_at) {
        process.signal_group(SIGKILL);
      }
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::microseconds(50000));
    }
    watch.drain(true, run);
    curve = watch.curve();
  } catch (const LaunchError& e) {
    run.launch_error = e.what();
  }

  TrialResult result;
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  const Verdict verdict = judge(run, metric_);
  // Stopped by the user without finishing: leave it RUNNING. Its owner (this
  // process) is about to exit, so the next `hpo run` takes it over.
  if (interrupted && verdict.state == TrialState::kFail) {
    storage_.set_trial_system_attr(plan.trial_id, "hpo:interrupted", true);
    result.interrupted = true;
    result.state = TrialState::kRunning;
    result.reason = "interrupted";
    return result;
  }

  TrialOutcome outcome;
  outcome.state = verdict.state;
  outcome.value = verdict.value;
  if (run.final_metrics) {
    for (const auto& [name, value] : *run.final_metrics) outcome.user_attrs[name] = metric_json(value);
  }
  outcome.system_attrs["hpo:curve"] = curve;
  outcome.system_attrs["hpo:duration_s"] = result.seconds;
  if (run.exit) outcome.system_attrs["hpo:exit"] = run.exit->describe();
  if (run.invalid_lines > 0) {
    outcome.system_attrs["hpo:invalid_report_lines"] = run.invalid_lines;
    outcome.system_attrs["hpo:first_invalid_report_line"] = run.first_invalid;
  }
  if (run.pruned_at) outcome.system_attrs["hpo:pruned_at_step"] = *run.pruned_at;
  if (verdict.state == TrialState::kFail) {
    outcome.system_attrs["hpo:fail_reason"] = verdict.reason;
    outcome.system_attrs["hpo:stderr_tail"] = file_tail(spec.stderr_path, kStderrTailBytes);
  }
  storage_.finish_trial(plan.trial_id, outcome);
  result.state = verdict.state;
  result.value = verdict.value;
  result.reason = verdict.reason;
  return result;
}

}  // namespace hpo
