#include "hpo/run/trial_runner.h"

#include <signal.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>

#include "hpo/launch/process.h"
#include "hpo/launch/report_reader.h"
#include "hpo/launch/trainer_server.h"
#include "hpo/launch/trainer_text.h"
#include "hpo/run/atomic_file.h"
#include "hpo/run/no_cuda.h"
#include "hpo/run/oom.h"
#include "hpo/run/oom_kills.h"
#include "hpo/run/runs_dir_error.h"
#include "hpo/run/stderr_summary.h"
#include "hpo/run/trial_config.h"
#include "hpo/run/trial_end.h"
#include "hpo/run/verdict.h"
#include "hpo/storage/trial_attrs.h"
#include "hpo/storage/trial_constraints.h"
#include "hpo/storage/trial_not_running.h"

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

// A series line as stored in the trial's system attr hpo:series:<split>:
// {"dates", "returns", "rank_ic"}, NaN RankICs as null (JSON has no NaN).
nlohmann::json series_json(const DailySeries& s) {
  nlohmann::json rank_ic = nlohmann::json::array();
  for (double v : s.rank_ic)
    rank_ic.push_back(std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v));
  return {{"dates", s.dates}, {"returns", s.returns}, {"rank_ic", rank_ic}};
}

nlohmann::json metrics_json(const Metrics& metrics) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : metrics) j[name] = metric_json(value);
  return j;
}

}  // namespace

// Turns report lines into stored intermediate values, the per-epoch curve
// and the final metrics, as they arrive.
class TrialRunner::Watch {
 public:
  Watch(ReportReader& reader, Storage& storage, const TrialPlan& plan, const std::string& metric)
      : reader_(reader), storage_(storage), plan_(plan), metric_(metric) {}

  // Returns true when a new intermediate value of the objective arrived.
  bool drain(bool at_eof, TrainerRun& run) {
    bool fresh = false;
    const size_t epochs_before = curve_.size();
    for (auto& event : reader_.read_new(at_eof)) {
      switch (event.kind) {
        case ReportEvent::Kind::kEpoch: {
          // As Optuna's Trial.report: a step's first value stands. A later
          // one would change what the pruner and TPE decided on (a trainer
          // that re-reports epochs after loading a checkpoint, say).
          if (!steps_.insert(event.step).second) {
            invalid(run, event.line,
                    "step " + std::to_string(event.step) +
                        " reported again; its first value is kept, as in Optuna");
            break;
          }
          if (curve_.empty()) first_epoch_at_ = Clock::now();
          curve_.push_back({{"step", event.step}, {"metrics", metrics_json(event.metrics)}});
          const auto it = event.metrics.find(metric_);
          if (it != event.metrics.end() && !run.pruned_at) {
            storage_.set_intermediate_value(plan_.trial_id, event.step, it->second, plan_.guard);
            // The latest step, not the latest line: a pruned trial's value
            // is its value there, and the pruner judges that step.
            if (event.step >= last_step_) {
              run.last_intermediate = it->second;
              last_step_ = event.step;
            }
            fresh = true;
          }
          break;
        }
        case ReportEvent::Kind::kFinal:
          run.final_metrics = std::move(event.metrics);
          break;
        case ReportEvent::Kind::kSeries:
          storage_.set_trial_system_attr(plan_.trial_id, "hpo:series:" + event.series.split,
                                         series_json(event.series), plan_.guard);
          break;
        case ReportEvent::Kind::kInvalid:
          if (event.fails_trial && bad_series_.empty()) {
            bad_series_ = "line " + std::to_string(event.line) + ": " + event.problem;
          }
          invalid(run, event.line, event.problem);
          break;
      }
    }
    if (curve_.size() > epochs_before) ++epoch_reads_;
    return fresh;
  }

  const nlohmann::json& curve() const { return curve_; }
  size_t epochs() const { return curve_.size(); }
  // How many reads brought epoch lines, and when the first of them came.
  int epoch_reads() const { return epoch_reads_; }
  Clock::time_point first_epoch_at() const { return first_epoch_at_; }
  int last_step() const { return last_step_; }
  const std::string& bad_series() const { return bad_series_; }

 private:
  static void invalid(TrainerRun& run, int line, const std::string& problem) {
    if (run.invalid_lines++ == 0)
      run.first_invalid = "line " + std::to_string(line) + ": " + problem;
  }

  ReportReader& reader_;
  Storage& storage_;
  const TrialPlan& plan_;
  const std::string& metric_;
  nlohmann::json curve_ = nlohmann::json::array();
  int last_step_ = -1;  // the largest step with a value of the objective
  std::set<int> steps_;  // every step reported in this attempt
  std::string bad_series_;  // the first broken series line, which fails the trial
  int epoch_reads_ = 0;
  Clock::time_point first_epoch_at_;
};

struct TrialRunner::Attempt {
  TrainerRun run;
  bool interrupted = false;
  nlohmann::json curve = nlohmann::json::array();
  std::string stderr_path;
  std::string bad_series;  // "<report file> line N: ..." when a series line was broken
  int burst_at_exit = 0;  // see TrialResult::report_burst_at_exit
  bool not_served = false;  // see TrialResult::not_served
};

namespace {

// Writes the attempt's config and names its files. Each attempt (a trial run
// again, an OOM retry) starts a fresh report channel; the previous attempt's
// logs and report are kept beside the new ones (*.prev.*).
LaunchSpec prepare_attempt(const TrialPlan& plan, const nlohmann::ordered_json& config) {
  const fs::path dir(plan.trial_dir);
  bool new_dir = false;
  try {
    new_dir = fs::create_directories(dir);
    write_file_atomically((dir / kConfigFile).string(), config.dump(2) + "\n");
  } catch (const std::runtime_error& e) {  // std::filesystem's, write_file_atomically's
    const auto* fs_error = dynamic_cast<const fs::filesystem_error*>(&e);
    throw RunsDirError("trial " + std::to_string(plan.number) + ": cannot prepare " + dir.string() +
                       ": " + (fs_error ? fs_error->code().message() : e.what()));
  }
  if (!new_dir) {
    // The report too: the new attempt's channel starts empty, and the curve
    // the earlier one reported stays readable beside it.
    for (const std::string log : {kStdoutFile, kStderrFile, kReportFile}) {
      const std::string stem = log.substr(0, log.rfind('.'));  // "stdout"
      const std::string ext = log.substr(log.rfind('.'));  // ".log"
      std::error_code ec;  // nothing to keep is fine
      fs::rename(dir / log, dir / (stem + ".prev" + ext), ec);
    }
    // An earlier attempt's report left in the channel would be read as this one's.
    std::error_code ec;
    if (fs::exists(dir / kReportFile, ec) || ec) {
      throw RunsDirError("trial " + std::to_string(plan.number) + ": cannot move aside " +
                         (dir / kReportFile).string() + ": the runs directory is not writable");
    }
  }
  LaunchSpec spec;
  spec.argv = plan.argv;
  spec.env = plan.env;
  spec.stdout_path = (dir / kStdoutFile).string();
  spec.stderr_path = (dir / kStderrFile).string();
  return spec;
}

// The line that says a failed trainer ran out of memory, from the end of its
// stderr, else of its stdout (where some frameworks print it).
std::string find_oom(const LaunchSpec& spec) {
  std::string line = find_oom_line(file_tail(spec.stderr_path, kStderrTailBytes));
  if (line.empty()) line = find_oom_line(file_tail(spec.stdout_path, kStderrTailBytes));
  return line;
}

// Where a slot's server writes its own stderr: beside the study's trials.
std::string server_log_path(const TrialPlan& plan) {
  return (fs::path(plan.trial_dir).parent_path() / ("trainer-server." + plan.slot + ".log"))
      .string();
}

struct KillUnfinished {
  TrainerServer* server;
  ~KillUnfinished() {
    if (server && !server->poll()) server->signal_group(SIGKILL);
  }
};

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

// Drives a running trainer to its exit, looking at its report as it goes.
// The signal rules: pruned, Ctrl-C or past its timeout, the trainer's group
// gets SIGTERM (so it can checkpoint), then SIGKILL once the grace period
// is over; a second Ctrl-C sends SIGKILL at once. Taken over by another
// host, it leaves by exception, and ~Process kills the group at once,
// without the grace, so that it writes nothing more into the trial
// directory its new owner uses.
void TrialRunner::supervise(RunningTrainer& running, Watch& watch, const TrialPlan& plan,
                            Clock::time_point started, Attempt& a) {
  TrainerRun& run = a.run;
  const auto deadline =
      trainer_.timeout_s > 0 ? started + seconds(trainer_.timeout_s) : Clock::time_point::max();
  const auto grace = seconds(trainer_.grace_period_s);
  std::optional<Clock::time_point> kill_at;  // set once SIGTERM was sent
  // Waits start at 0.1 ms and back off to 50 ms: a slow trainer costs
  // little CPU (20 looks a second at its report). Its exit ends a wait at once.
  auto nap = std::chrono::microseconds(100);
  while (true) {
    if (const auto holder = lost_ ? lost_->holder(plan.trial_id) : std::nullopt) {
      throw OwnershipLost(plan.trial_id, *holder);
    }
    if (const auto ended = lost_ ? lost_->ended(plan.trial_id) : std::nullopt) {
      throw TrialNotRunning(plan.trial_id, *ended);  // its trainer may never report
    }
    if ((run.exit = running.poll())) return;
    const bool fresh = watch.drain(false, run);
    const auto now = Clock::now();
    if (fresh && !kill_at && should_prune_ && should_prune_(plan)) {
      run.pruned_at = watch.last_step();
      running.signal_group(SIGTERM);
      kill_at = now + grace;
    } else if (stop_.load() >= kStopNow) {
      a.interrupted = true;
      running.signal_group(SIGKILL);
    } else if (!kill_at && (stop_.load() >= kStopGracefully || now >= deadline)) {
      (now >= deadline ? run.timed_out : a.interrupted) = true;
      running.signal_group(SIGTERM);
      kill_at = now + grace;
    } else if (kill_at && now >= *kill_at) {
      running.signal_group(SIGKILL);
    }
    running.wait_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(50000));
  }
}

namespace {

// An unflushed report: every epoch line came in one read, after the trainer
// ran silent for kReportBurstSeconds, and shortly before its exit was seen
// or after it. The buffer is flushed as the trainer ends, and a teardown
// that takes a while lets hpo read it before the exit, so "only after the
// exit" missed it under load. Lines flushed one by one come in reads of
// their own; fast epochs flushed long before the exit are no sign either.
bool is_report_burst(size_t epochs, int epoch_reads, Clock::time_point first_epoch_at,
                     Clock::time_point started, Clock::time_point exited_at) {
  return epochs >= 2 && epoch_reads == 1 &&
         first_epoch_at - started >= seconds(kReportBurstSeconds) &&
         first_epoch_at + seconds(kReportBurstBeforeExitSeconds) > exited_at;
}

}  // namespace

TrialRunner::Attempt TrialRunner::attempt(const TrialPlan& plan,
                                          const nlohmann::ordered_json& config) {
  const auto started = Clock::now();
  const LaunchSpec spec = prepare_attempt(plan, config);
  const std::string report_file = (fs::path(plan.trial_dir) / kReportFile).string();
  Attempt a;
  a.stderr_path = spec.stderr_path;
  TrainerRun& run = a.run;
  run.timeout_s = trainer_.timeout_s;
  const std::optional<uint64_t> oom_kills_before = oom_kill_count();
  ReportReader reader(report_file);
  try {
    std::unique_ptr<Process> own;  // the trial's own process, unless it is served
    TrainerServer* server = nullptr;
    if (trainer_.serve) {
      server = &servers_.for_trial(plan.slot, spec, server_log_path(plan));
      server->start(spec);
    } else {
      own = std::make_unique<Process>(spec);
    }
    Process& process = server ? server->process() : *own;
    RunningTrainer& running = server ? static_cast<RunningTrainer&>(*server) : *own;
    // Left by exception (taken over, say), a served trial's server is killed
    // as its own process would be: it must write nothing more for the trial.
    const KillUnfinished kill_unfinished{server};
    const WatchedTrainer watched(watch_, plan.trial_id, process);
    // Overwrites the previous attempt's: a resumed run ends this one's group.
    storage_.set_trial_system_attr(plan.trial_id, kTrainerAttr, record_of(process).to_json(),
                                   plan.guard);
    Watch watch(reader, storage_, plan, metric_);
    supervise(running, watch, plan, started, a);
    const auto exited_at = Clock::now();
    a.not_served = server && !server->replied() && run.exit && run.exit->success();
    watch.drain(true, run);
    if (is_report_burst(watch.epochs(), watch.epoch_reads(), watch.first_epoch_at(), started,
                        exited_at))
      a.burst_at_exit = static_cast<int>(watch.epochs());
    a.curve = watch.curve();
    if (!watch.bad_series().empty()) a.bad_series = report_file + " " + watch.bad_series();
    if (const auto silent = watch_ ? watch_->stopped(plan.trial_id) : std::nullopt) {
      run.cut_off_s = std::chrono::duration<double>(*silent).count();
    }
  } catch (const LaunchError& e) {
    run.launch_error = e.what();
  }
  if (run.exit && !run.exit->success()) {
    const auto after = oom_kill_count();
    if (after && oom_kills_before && !user_space_oom_killer_running())
      run.oom_killer_struck = *after > *oom_kills_before;
    run.oom_line = find_oom(spec);
    const std::string tail = file_tail(spec.stderr_path, kStderrTailBytes);
    run.no_cuda_line = find_no_cuda_line(tail);
    run.bad_env_line = find_marked_line(tail, kBadEnvMarker);
  }
  return a;
}

TrialResult TrialRunner::run(const TrialPlan& plan) {
  try {
    return run_owned(plan);
  } catch (const OwnershipLost& e) {
    TrialResult result;
    result.state = TrialState::kRunning;  // the new owner's to end
    result.taken_over = e.holder;
    result.reason = "taken over";
    return result;
  } catch (const TrialNotRunning& e) {
    // Its trainer reported on, and it was killed as the report was refused.
    TrialResult result;
    result.state = TrialState::kRunning;  // not ours to end
    result.ended_elsewhere = e.state;
    result.reason = "stopped its trainer";
    return result;
  }
}

TrialResult TrialRunner::run_owned(const TrialPlan& plan) {
  const auto started = Clock::now();
  nlohmann::ordered_json config = plan.config;
  nlohmann::json oom_retries = nlohmann::json::array();
  Attempt a = attempt(plan, config);
  Verdict verdict = judge(a.run, metric_);
  // Out of memory: the same trial again at half the batch, while it halves.
  while (verdict.oom && trainer_.retry_halved_on_oom && !a.interrupted &&
         stop_.load() == kKeepRunning) {
    const auto retry = halve_batch(config);
    if (!retry) break;
    oom_retries.push_back({{"batch_size", config["batch_size"]}, {"reason", verdict.reason}});
    config = *retry;
    storage_.set_trial_system_attr(plan.trial_id, kTrialConfigAttr, config, plan.guard);
    a = attempt(plan, config);
    verdict = judge(a.run, metric_);
  }
  const TrainerRun& run = a.run;
  // A broken series line would leave the sweep's statistics without this
  // trial's days: fail it, as a broken objective would.
  if (!a.bad_series.empty() && verdict.state == TrialState::kComplete) {
    verdict = Verdict{TrialState::kFail, std::nullopt, "bad report: " + a.bad_series};
  }

  GoalValues goals;
  if (verdict.state == TrialState::kComplete) {
    goals = goal_values(goals_, *run.final_metrics);
    if (!goals.problem.empty()) verdict = Verdict{TrialState::kFail, std::nullopt, goals.problem};
  }

  TrialResult result;
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  result.report_burst_at_exit = a.burst_at_exit;
  result.not_served = a.not_served;
  // Stopped by the user without finishing: leave it RUNNING. Its owner (this
  // process) is about to exit, so the next `hpo run` takes it over.
  if (a.interrupted && verdict.state == TrialState::kFail) {
    storage_.set_trial_system_attr(plan.trial_id, kInterruptedAttr, true, plan.guard);
    result.interrupted = true;
    result.state = TrialState::kRunning;
    result.reason = "interrupted";
    return result;
  }

  // Cut off from the database: another host may run the trial by now, and
  // this run's end is not the trial's.
  if (run.cut_off_s && verdict.state != TrialState::kComplete) {
    result.cut_off = true;
    result.state = TrialState::kRunning;
    result.reason = verdict.reason;
    return result;
  }

  TrialOutcome outcome;
  outcome.guard = plan.guard;
  outcome.state = verdict.state;
  outcome.value = verdict.value;
  if (verdict.state == TrialState::kComplete) {
    outcome.values = goals.values;
    if (!goals_.constraints.empty()) outcome.system_attrs[kConstraintsAttr] = goals.constraints;
  }
  if (run.final_metrics) {
    for (const auto& [name, value] : *run.final_metrics)
      outcome.user_attrs[name] = metric_json(value);
  }
  outcome.system_attrs[kCurveAttr] = a.curve;
  outcome.system_attrs[kDurationAttr] = result.seconds;
  if (run.exit) outcome.system_attrs[kExitAttr] = run.exit->describe();
  if (run.invalid_lines > 0) {
    outcome.system_attrs[kInvalidReportLinesAttr] = run.invalid_lines;
    outcome.system_attrs[kFirstInvalidReportLineAttr] = run.first_invalid;
  }
  if (run.pruned_at) outcome.system_attrs[kPrunedAtStepAttr] = *run.pruned_at;
  if (!oom_retries.empty()) outcome.system_attrs[kOomRetriesAttr] = oom_retries;
  // The trial's params say what ran, where the search space can hold it.
  RanParams ran = params_that_ran(plan.params, config);
  outcome.params = std::move(ran.inside);
  if (!ran.outside.empty()) outcome.system_attrs[kRanOutsideSpaceAttr] = ran.outside;
  if (verdict.state == TrialState::kFail) {
    outcome.system_attrs[kFailReasonAttr] = verdict.reason;
    outcome.system_attrs[kFailKindAttr] = verdict.oom       ? "oom"
                                          : verdict.no_cuda ? "no_cuda"
                                          : verdict.bad_env ? "bad_env"
                                                            : "error";
    outcome.system_attrs[kStderrTailAttr] = file_tail(a.stderr_path, kStderrTailBytes);
  }
  if (!store_trial_end(storage_, plan.trial_id, plan.number, outcome)) {
    const auto now = storage_.trial(plan.trial_id);
    result.state = TrialState::kRunning;  // not ours to end
    result.ended_elsewhere = now ? now->state : TrialState::kFail;
    result.reason = "its result here was not stored";
    return result;
  }
  if (outcome.state != verdict.state) {  // stored as a failure instead
    verdict = Verdict{outcome.state, std::nullopt,
                      outcome.system_attrs[kFailReasonAttr].get<std::string>()};
  }
  result.state = verdict.state;
  result.value = verdict.value;
  if (result.state == TrialState::kComplete) {
    result.values = outcome.values;
    result.feasible = is_feasible(goals.constraints);
  }
  result.reason = verdict.reason;
  // The run's FAIL line says why, as hpo status's note does: a bare exit
  // code sends the user to the trial's files for the exception.
  const auto tail = outcome.system_attrs.find(kStderrTailAttr);
  if (tail != outcome.system_attrs.end() && tail->second.is_string())
    result.reason = with_last_line(result.reason, tail->second.get<std::string>());
  if (!oom_retries.empty()) {
    result.reason += (result.reason.empty() ? "" : "; ") + std::to_string(oom_retries.size()) +
                     " OOM retr" + (oom_retries.size() == 1 ? "y" : "ies") +
                     ", ran at batch_size " + config["batch_size"].dump();
  }
  return result;
}

}  // namespace hpo
