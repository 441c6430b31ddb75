// Runs one trial's trainer to its end and records what happened: live
// per-epoch values while it runs, then the final state, value, metrics and
// failure reason. Knows processes and storage, never samplers.
#ifndef HPO_RUN_TRIAL_RUNNER_H_
#define HPO_RUN_TRIAL_RUNNER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/run/beat_watch.h"
#include "hpo/run/lost_trials.h"
#include "hpo/run/objectives.h"
#include "hpo/run/server_pool.h"
#include "hpo/run/stop_flag.h"
#include "hpo/run/trainer_record.h"
#include "hpo/run/trial_files.h"
#include "hpo/storage/storage.h"

namespace hpo {

class RunningTrainer;

// Everything decided about a trial before its trainer starts.
struct TrialPlan {
  int64_t trial_id = 0;
  int number = 0;
  std::vector<StoredParam> params;  // the trial's params as stored (sampled)
  nlohmann::ordered_json config;  // sampled and fixed values: the trainer's config file
  std::string trial_dir;  // absolute
  std::string slot;  // the slot's name: a served trial runs on that slot's server
  std::vector<std::string> argv;  // placeholders expanded; argv[0] resolved
  std::vector<std::pair<std::string, std::string>> env;  // on top of hpo's own environment
  std::string summary;  // "batch_size=512 lr=0.0003", for progress lines
  // A trial run again after its hpo died: the trainer that run started, whose
  // leftovers must be gone before the trial's new trainer starts.
  std::optional<TrainerRecord> earlier_trainer;
  // Every write for the trial is made only while this worker owns it.
  OwnerGuard guard;
};

struct TrialResult {
  TrialState state = TrialState::kFail;
  std::optional<double> value;
  std::vector<double> values;  // every objective's, in a study with several
  bool feasible = true;  // COMPLETE within its study's constraints (or it has none)
  std::string reason;
  double seconds = 0;
  // Stopped by a Ctrl-C before it ended: left RUNNING, for the next run.
  bool interrupted = false;
  // Taken over by another worker (this one was judged dead): its owner now.
  // The trainer was stopped and nothing of this run was stored after.
  std::optional<nlohmann::json> taken_over;
  // Its trainer was stopped because its heartbeats failed past the grace
  // (beat_watch.h): left RUNNING, nothing stored, `reason` says why.
  bool cut_off = false;
  // Ended by another client while it ran (an Optuna worker's
  // fail_stale_trials, say): its state now. Nothing of this run's end was
  // stored; its trainer was stopped if it still ran. `reason` says which.
  std::optional<TrialState> ended_elsewhere;
  // Epoch lines that reached the report file all at once as the trainer
  // ended, after a silent run (kReportBurstSeconds or longer): its report is
  // probably not flushed per line, so pruning and hpo status saw nothing.
  int report_burst_at_exit = 0;
  // With trainer.serve: the trainer ended the trial by exiting 0, not by a
  // reply. It does not serve, and every trial pays a process of its own.
  bool not_served = false;
};

// How long a trainer must run silent before a burst of epoch lines at its
// exit counts as an unflushed report.
inline constexpr double kReportBurstSeconds = 2.0;
// How long before its exit was seen such a burst may come: a trainer flushes
// its buffer as it ends, and its teardown can take a while after that.
inline constexpr double kReportBurstBeforeExitSeconds = 1.0;

// Asked after each intermediate value is stored: should this trial stop?
using PruneCheck = std::function<bool(const TrialPlan& plan)>;

class TrialRunner {
 public:
  // `lost`, when given, is watched while a trainer runs: a trial found
  // there is stopped at once.
  // `watch`, when given, may stop a trainer whose heartbeats failed.
  // `goals` are the study's objectives (the first is the one pruning and
  // one-objective studies use) and constraints.
  TrialRunner(Storage& storage, TrainerConfig trainer, Goals goals, const StopFlag& stop,
              PruneCheck should_prune = {}, const LostTrials* lost = nullptr,
              BeatWatch* watch = nullptr)
      : storage_(storage),
        trainer_(std::move(trainer)),
        goals_(std::move(goals)),
        metric_(goals_.objectives.at(0).metric),
        stop_(stop),
        should_prune_(std::move(should_prune)),
        lost_(lost),
        watch_(watch) {}

  // Blocks until the trainer has ended (or was stopped) and the outcome is
  // stored. A trial taken over by another worker (a guarded write refused,
  // or found in `lost`) has its trainer killed and is returned with
  // taken_over set; one that another client ended, with ended_elsewhere.
  TrialResult run(const TrialPlan& plan);

 private:
  struct Attempt;
  class Watch;
  TrialResult run_owned(const TrialPlan& plan);
  // Runs the trainer once with `config` and watches it to its end.
  Attempt attempt(const TrialPlan& plan, const nlohmann::ordered_json& config);
  // Drives the running trainer to its exit: its report, pruning, timeout,
  // Ctrl-C and the SIGTERM-then-SIGKILL rules.
  void supervise(RunningTrainer& running, Watch& watch, const TrialPlan& plan,
                 std::chrono::steady_clock::time_point started, Attempt& a);

  Storage& storage_;
  const TrainerConfig trainer_;
  const Goals goals_;
  const std::string metric_;
  const StopFlag& stop_;
  const PruneCheck should_prune_;
  const LostTrials* const lost_;
  BeatWatch* const watch_;
  ServerPool servers_;  // with trainer.serve: the trainers kept running, one per slot
};

}  // namespace hpo

#endif  // HPO_RUN_TRIAL_RUNNER_H_
