// Runs N more trials of a study with K trainers at a time: asks the sampler,
// records each new trial, hands it to a TrialRunner, and shows progress.
// Trials whose owning process died are taken over first and run again with
// the same parameters, keeping their trial numbers.
#ifndef HPO_RUN_STUDY_RUNNER_H_
#define HPO_RUN_STUDY_RUNNER_H_

#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "hpo/config/study_config.h"
#include "hpo/gpu/slot_plan.h"
#include "hpo/gpu/utilization_sampler.h"
#include "hpo/run/beat_watch.h"
#include "hpo/run/change_feed.h"
#include "hpo/run/lost_trials.h"
#include "hpo/run/progress.h"
#include "hpo/run/running_trials.h"
#include "hpo/run/sampling_space.h"
#include "hpo/run/stop_flag.h"
#include "hpo/run/trial_runner.h"
#include "hpo/storage/storage.h"
#include "pruners/pruner.h"
#include "samplers/sampler.h"

namespace hpo {

struct RunSummary {
  int completed = 0;
  int pruned = 0;
  int failed = 0;
  int resumed = 0;  // orphans taken over and run again
  int taken_over = 0;  // this run's trials that other workers took over
  int ended_elsewhere = 0;  // this run's trials another client ended while they ran
  int interrupted = 0;  // left RUNNING by a Ctrl-C
  std::string gave_up;  // why launching stopped early (too many failures); empty otherwise
  bool gave_up_no_cuda = false;  // ... because the trainer cannot use its GPU (no_cuda.h)
  bool gave_up_bad_env = false;  // ... because the trainer refuses the trials' env (no_cuda.h)
};

// When to stop a study that keeps failing: after `count` failed trials in
// this run, or once `fraction` of at least 4 finished trials failed. Zero
// disables each.
struct FailureLimit {
  int count = 0;
  double fraction = 0;
};

class StudyRunner {
 public:
  // `program` is the trainer's resolved path (argv[0]).
  // The sampler is asked in `space`'s bounded space; trials are stored in
  // its declared one (config.space.params).
  StudyRunner(Storage& storage, const StudyConfig& config, const StudyRecord& study,
              const SamplingSpace& space, Sampler& sampler, Pruner& pruner, Progress& progress,
              const StopFlag& stop, std::string program);

  // Blocks until `n_trials` new trials, and the study's orphans (trials
  // whose run died) found meanwhile, have ended or a stop was requested. One
  // worker per slot: worker j runs its trials with slots[j]'s env (GPU,
  // threads), so a finished trial's slot is refilled by the next at once.
  // With `utilization`, trials on a GPU get its mean use stored ("hpo:gpu").
  RunSummary run(int n_trials, const std::vector<Slot>& slots, FailureLimit limit = {},
                 UtilizationSampler* utilization = nullptr);

 private:
  // A trial to take over, and how: a trial whose owner is known dead here
  // (or our own, cut off) is taken at once; any other only while its
  // heartbeat is still stale when the takeover commits.
  struct Orphan {
    TrialRecord trial;
    bool needs_stale_beat = true;
  };
  // Sets `resumed` when the plan reruns an orphan, and `sent` to a time no
  // later than the plan's trial's last beat; needs mu_ held.
  std::optional<TrialPlan> next_plan(const Slot& slot, bool& resumed,
                                     BeatWatch::Clock::time_point& sent, RunSummary& summary);
  std::optional<TrialPlan> last_look(const Slot& slot, bool& resumed,
                                     BeatWatch::Clock::time_point& sent);
  std::optional<TrialPlan> take_orphan(const Slot& slot, BeatWatch::Clock::time_point& sent);
  // Fails a trial taken over that never got its params (its worker died
  // while the sampler was asked): there is nothing to run again.
  void fail_without_params(const TrialRecord& orphan);
  // The plan of a new trial; none when another worker took the trial over
  // (or another client ended it) while the sampler made its params.
  std::optional<TrialPlan> new_trial(const Slot& slot, BeatWatch::Clock::time_point& sent,
                                     RunSummary& summary);
  TrialPlan plan_for(const TrialRecord& trial, const Slot& slot);
  void worker(TrialRunner& runner, const Slot& slot, UtilizationSampler* utilization,
              RunSummary& summary);
  bool should_prune(const TrialPlan& plan);
  void end_earlier_trainer(const TrialPlan& plan);
  void find_orphans();
  void look_for_orphans();  // find_orphans(), and a note of what it found
  void beat();  // heartbeats for every trial in running_
  void sync_sampler();  // needs mu_ held
  // Stops handing out trials and keeps the first error; needs mu_ held.
  void give_up(std::exception_ptr error);
  // Adds a finished trial to the summary and applies the failure limit;
  // needs mu_ held. Returns why the study stops launching, if this trial
  // made it stop; empty otherwise.
  std::string count_result(const TrialResult& result, bool resumed, RunSummary& summary);
  // Counts and tells of a trial that is no longer this run's to end; needs
  // mu_ held.
  void note_gone(const TrialPlan& plan, const TrialResult& result, RunSummary& summary);
  void queue_again(const TrialPlan& plan, TrialResult& result);
  std::string why_not_taken(const TrialRecord& orphan);

  Storage& storage_;
  const StudyConfig& config_;
  const StudyRecord study_;
  const SamplingSpace& space_;
  Sampler& sampler_;
  Pruner& pruner_;
  Progress& progress_;
  const StopFlag& stop_;
  const std::string program_;
  const nlohmann::json owner_;
  const OwnerGuard guard_;  // writes for our trials: only while owner_ holds them
  LostTrials lost_;  // our trials that other workers took over
  BeatWatch watch_;  // stops our trainers when our heartbeats fail past the grace

  std::mutex mu_;  // guards everything below, and the sampler and the pruner
  int budget_ = 0;  // new trials still to launch (orphans are not counted)
  bool launching_ = true;  // false once the run gave up: nothing more starts
  std::deque<Orphan> orphans_;
  std::chrono::steady_clock::time_point last_orphan_scan_;
  std::set<std::string> last_looks_;  // the slots that took their last_look()
  RunningTrials running_;  // trials this process runs now: they get heartbeats
  ChangeFeed sampler_feed_;  // what the sampler has been told
  ChangeFeed pruner_feed_;  // what pruner_study_ holds
  PrunerStudy pruner_study_;  // the trials seen, in creation order
  std::map<int64_t, size_t> pruner_index_;  // trial id -> its place in pruner_study_.trials
  std::exception_ptr error_;  // the first error a worker hit
  FailureLimit limit_;
  std::atomic<bool> warned_report_burst_{false};  // the unflushed-report note, once a run
  std::atomic<bool> warned_not_served_{false};  // the trainer.serve note, once a run
};

}  // namespace hpo

#endif  // HPO_RUN_STUDY_RUNNER_H_
