#include "hpo/run/study_runner.h"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <thread>

#include "hpo/run/no_cuda.h"
#include "hpo/run/orphans.h"
#include "hpo/run/owner.h"
#include "hpo/run/trainer_invocation.h"
#include "hpo/run/trial_config.h"
#include "hpo/storage/trial_attrs.h"
#include "hpo/storage/trial_not_running.h"

namespace hpo {

namespace fs = std::filesystem;

namespace {

// Other hosts take a trial over once its heartbeat is this old.
std::chrono::duration<double> heartbeat_grace(const StudyConfig& config) {
  return std::chrono::duration<double>(heartbeat_grace_s(config.heartbeat_interval_s));
}

BeatWatch::Clock::duration steady(std::chrono::duration<double> d) {
  return std::chrono::duration_cast<BeatWatch::Clock::duration>(d);
}

std::string trial_dir_name(int number) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "trial_%04d", number);
  return buf;
}

// Calls `fn` every `period` while trials run (progress redraws, heartbeats);
// stops and joins on destruction, also when a worker's exception unwinds
// past it.
class Periodic {
 public:
  Periodic(std::chrono::milliseconds period, std::function<void()> fn)
      : thread_([this, period, fn = std::move(fn)] {
          std::unique_lock<std::mutex> lock(mu_);
          while (!cv_.wait_for(lock, period, [this] { return done_; })) {
            lock.unlock();
            fn();
            lock.lock();
          }
        }) {}
  ~Periodic() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

// Runs `fn` when the scope ends, however it ends.
class TrialEnd {
 public:
  explicit TrialEnd(std::function<void()> fn) : fn_(std::move(fn)) {}
  ~TrialEnd() { fn_(); }
  TrialEnd(const TrialEnd&) = delete;
  TrialEnd& operator=(const TrialEnd&) = delete;

 private:
  std::function<void()> fn_;
};

// Whether the trial's creator, an hpo that stores each trial's config with
// its params (its owner record names a worker), died before storing them.
// An owner written by hand, or by an older hpo, does not tell: such a trial
// runs again as it is.
bool never_got_params(const TrialRecord& trial) {
  const auto owner = trial.system_attrs.find(kOwnerAttr);
  return owner != trial.system_attrs.end() && !Owner::from_json(owner->second).worker.empty() &&
         !trial.system_attrs.count(kTrialConfigAttr);
}

}  // namespace

StudyRunner::StudyRunner(Storage& storage, const StudyConfig& config, const StudyRecord& study,
                         const SamplingSpace& space, Sampler& sampler, Pruner& pruner,
                         Progress& progress, const StopFlag& stop, std::string program)
    : storage_(storage),
      config_(config),
      study_(study),
      space_(space),
      sampler_(sampler),
      pruner_(pruner),
      progress_(progress),
      stop_(stop),
      program_(std::move(program)),
      owner_(current_owner().to_json()),
      guard_{kOwnerAttr, owner_},
      watch_(steady(heartbeat_grace(config)),
             steady(std::chrono::duration<double>(config.trainer.grace_period_s))),
      sampler_feed_(study.id),
      pruner_feed_(study.id),
      pruner_study_{config.name, study.direction, {}} {}

TrialPlan StudyRunner::plan_for(const TrialRecord& trial, const Slot& slot) {
  TrialPlan plan;
  plan.trial_id = trial.id;
  plan.number = trial.number;
  plan.params = trial.params;
  plan.guard = guard_;
  // A trial run again keeps the config it first ran with, even if the
  // study file's fixed values changed since.
  const auto stored = trial.system_attrs.find(kTrialConfigAttr);
  plan.config = stored != trial.system_attrs.end() && stored->second.is_object()
                    ? nlohmann::ordered_json(stored->second)
                    : trial_config(trial.params, config_.space.fixed);
  plan.summary = describe_params(trial.params);
  plan.trial_dir =
      fs::absolute(fs::path(config_.runs_dir) / config_.name / trial_dir_name(trial.number))
          .string();
  TrainerInvocation run =
      trainer_invocation(config_, program_, slot, plan.trial_dir, std::to_string(trial.number),
                         std::to_string(trial.id));
  plan.argv = std::move(run.argv);
  plan.env = std::move(run.env);
  plan.slot = slot.name;
  return plan;
}

std::optional<TrialPlan> StudyRunner::take_orphan(const Slot& slot,
                                                  BeatWatch::Clock::time_point& sent) {
  while (!orphans_.empty()) {
    Orphan found = std::move(orphans_.front());
    orphans_.pop_front();
    TrialRecord& orphan = found.trial;
    const auto grace =
        found.needs_stale_beat
            ? std::optional<double>(owner_grace_s(orphan, config_.heartbeat_interval_s))
            : std::nullopt;
    sent = BeatWatch::Clock::now();
    // Compare-and-set with our first beat: of several runs that find the
    // same orphan, one wins, and only while it is still stale.
    const auto owner = orphan.system_attrs.find(kOwnerAttr);
    const nlohmann::json held = owner != orphan.system_attrs.end() ? owner->second : nullptr;
    if (storage_.take_over_trial(orphan.id, held, guard_, grace)) {
      if (never_got_params(orphan)) {
        fail_without_params(orphan);
        continue;
      }
      storage_.set_trial_system_attrs(
          orphan.id,
          {{kSlotAttr, slot.name}, {kHeartbeatIntervalAttr, config_.heartbeat_interval_s}}, guard_);
      TrialPlan plan = plan_for(orphan, slot);
      // Run again after its owner died: a trainer that checkpoints resumes.
      plan.env.emplace_back("HPO_RESUME", "1");
      const auto earlier = orphan.system_attrs.find(kTrainerAttr);
      if (earlier != orphan.system_attrs.end())
        plan.earlier_trainer = TrainerRecord::from_json(earlier->second);
      return plan;
    }
    // Not this run's to count, nor to run.
    progress_.expect_more(-1);
    progress_.note("trial " + std::to_string(orphan.number) + ": " + why_not_taken(orphan) +
                   "; leaving it");
  }
  return std::nullopt;
}

// take_over_trial refused `orphan`: the trial, read again, says why.
std::string StudyRunner::why_not_taken(const TrialRecord& orphan) {
  std::optional<TrialRecord> now;
  try {
    now = storage_.trial(orphan.id);
  } catch (const std::exception& e) {
    return std::string("another run or client took it first (it could not be read again: ") +
           e.what() + ")";
  }
  if (!now) return "it is gone from the study";
  if (now->state != TrialState::kRunning)
    return std::string("another client set it to ") + to_string(now->state) + " first";
  const auto owner = now->system_attrs.find(kOwnerAttr);
  const auto before = orphan.system_attrs.find(kOwnerAttr);
  if (owner != now->system_attrs.end() && before != orphan.system_attrs.end() &&
      owner->second == before->second)
    return "its run is beating again";
  return "another run resumed it first";
}

void StudyRunner::fail_without_params(const TrialRecord& orphan) {
  const std::string why = "its worker stopped before the trial's params were stored";
  TrialOutcome failed{TrialState::kFail, std::nullopt, {}, {}};
  failed.system_attrs = {{kFailReasonAttr, why}, {kFailKindAttr, "error"}};
  failed.guard = guard_;
  storage_.finish_trial(orphan.id, failed);
  progress_.expect_more(-1);  // counted when found; it is not run
  progress_.note("trial " + std::to_string(orphan.number) + ": failed: " + why);
}

// Tells the sampler what changed in the database since the last ask: new
// trials (other processes' too) and those unfinished then. The random
// sampler draws from the trial's number alone and never reads what it was
// told: reading the study for it would cost a query per table per trial, and
// each worker would re-read every running trial of the fleet for nothing.
void StudyRunner::sync_sampler() {
  if (sampler_.name() == "random") return;
  for (const auto& t : sampler_feed_.next(storage_)) sampler_.tell(space_.view(t));
}

std::optional<TrialPlan> StudyRunner::new_trial(const Slot& slot,
                                                BeatWatch::Clock::time_point& sent,
                                                RunSummary& summary) {
  sync_sampler();
  NewTrial fresh;
  int reserved = -1;
  // Seeded by the trial's own number, which the database hands out once:
  // processes that share a study and its seed still draw distinct values.
  fresh.derived_params = [&](int number) {
    reserved = number;
    // The trial's first beat is stored after this call (and its number
    // reserved before it, however long that took).
    sent = BeatWatch::Clock::now();
    return space_.to_stored(sampler_.ask(space_.bounded(), number));
  };
  fresh.system_attrs[kOwnerAttr] = owner_;
  fresh.system_attrs[kHeartbeatIntervalAttr] = config_.heartbeat_interval_s;
  fresh.heartbeat = true;
  fresh.guard = guard_;
  // The plan needs the trial's number; it is stored with the trial, in the
  // one transaction that creates it, so that `hpo status` and Optuna users
  // can see exactly what ran. Only the study's env settings and hpo's own
  // variables: the caller's environment may hold secrets.
  std::optional<TrialPlan> plan;
  fresh.derived_system_attrs = [&](const TrialRecord& created) {
    plan = plan_for(created, slot);
    nlohmann::json env = nlohmann::json::object();
    for (const auto& [k, v] : plan->env) env[k] = v;
    return Attrs{{kSlotAttr, slot.name},
                 {kArgvAttr, plan->argv},
                 {kEnvAttr, env},
                 {kTrialDirAttr, plan->trial_dir},
                 {kTrialConfigAttr, plan->config}};
  };
  // On PostgreSQL the sampler runs between the trial's two transactions: a
  // sampler slower than the heartbeat grace (or a process stopped there)
  // lets another worker find the trial stale and take it over. It is that
  // worker's then, to fail for want of params; this one makes another.
  const auto lose = [&](const std::string& what) {
    progress_.expect_more(-1);
    progress_.note("trial " + std::to_string(reserved) + ": " + what +
                   " while the sampler made its params (longer than the heartbeat grace, " +
                   Progress::format_duration(heartbeat_grace(config_).count()) + "); leaving it");
    return std::nullopt;
  };
  try {
    storage_.create_trial(study_.id, fresh);
  } catch (const OwnershipLost& e) {
    ++summary.taken_over;
    return lose("taken over by another run (owner " + e.holder.dump() + ")");
  } catch (const TrialNotRunning& e) {
    ++summary.ended_elsewhere;
    return lose("set to " + std::string(to_string(e.state)) + " by another client");
  }
  return std::move(*plan);
}

// Orphans first, then new trials while the budget lasts. Orphans do not
// count against it: `-n N` runs N new trials, and the interrupted ones
// besides.
std::optional<TrialPlan> StudyRunner::next_plan(const Slot& slot, bool& resumed,
                                                BeatWatch::Clock::time_point& sent,
                                                RunSummary& summary) {
  if (stop_.load() != kKeepRunning || !launching_) return std::nullopt;
  // A worker elsewhere may have died since the last look: its trials go
  // before new ones, once their heartbeats are stale. Every heartbeat
  // interval while new trials are still to come, then once more per slot as
  // it runs out (last_look): a run that only resumes (-n 0), or has launched
  // all its new trials, ends with what it found rather than waiting on the
  // fleet's next death.
  const auto now = std::chrono::steady_clock::now();
  if (budget_ > 0 && orphans_.empty() &&
      now - last_orphan_scan_ >= std::chrono::duration<double>(config_.heartbeat_interval_s)) {
    look_for_orphans();
  }
  auto plan = take_orphan(slot, sent);
  resumed = plan.has_value();
  if (plan) return plan;
  if (budget_ <= 0) return last_look(slot, resumed, sent);
  --budget_;
  if (auto plan = new_trial(slot, sent, summary)) return plan;
  return next_plan(slot, resumed, sent, summary);  // lost as it was made: counted, try again
}

// Out of new trials: one more look for orphans before this slot ends, so that
// a run on this host that died meanwhile (an orphan at once: its pid is gone)
// is not left RUNNING until someone runs hpo again. One look per slot, as
// each runs out (the last slot's is the run's last), not a wait for the
// fleet's next death.
std::optional<TrialPlan> StudyRunner::last_look(const Slot& slot, bool& resumed,
                                                BeatWatch::Clock::time_point& sent) {
  if (!last_looks_.insert(slot.name).second) return std::nullopt;
  look_for_orphans();
  auto plan = take_orphan(slot, sent);
  resumed = plan.has_value();
  return plan;
}

bool StudyRunner::should_prune(const TrialPlan& plan) {
  if (pruner_.name() == "none") return false;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& t : pruner_feed_.next(storage_)) {
    PrunerTrial p{t.number, t.state, t.intermediate, {}};
    // Successive halving's rungs, stored as Optuna stores them.
    for (int rung = 0;; ++rung) {
      const auto it = t.system_attrs.find(completed_rung_key(rung));
      if (it == t.system_attrs.end() || !it->second.is_number()) break;
      p.rungs[rung] = it->second.get<double>();
    }
    // New trials come after the ones seen (ids grow with creation); a
    // trial seen before is updated where it stands.
    const auto [at, added] = pruner_index_.emplace(t.id, pruner_study_.trials.size());
    if (added)
      pruner_study_.trials.push_back(std::move(p));
    else
      pruner_study_.trials[at->second] = std::move(p);
  }
  const auto current = pruner_index_.find(plan.trial_id);
  if (current == pruner_index_.end()) return false;
  const PruneDecision decision =
      pruner_.decide(pruner_study_, pruner_study_.trials[current->second]);
  for (const auto& [rung, value] : decision.completed_rungs) {
    storage_.set_trial_system_attr(plan.trial_id, completed_rung_key(rung), value, guard_);
  }
  return decision.prune;
}

void StudyRunner::look_for_orphans() {
  find_orphans();
  if (orphans_.empty()) return;
  progress_.expect_more(static_cast<int>(orphans_.size()));
  progress_.note(
      "found " + std::to_string(orphans_.size()) +
      " trial(s) whose run died or stopped beating since this run started; running them again");
}

void StudyRunner::find_orphans() {
  last_orphan_scan_ = std::chrono::steady_clock::now();
  auto trials = storage_.trials(study_.id);
  const std::set<int64_t> stale =
      stale_beats(storage_, study_.id, trials, config_.heartbeat_interval_s);
  for (auto& t : trials) {
    const Orphanhood o = orphanhood(t, stale);
    if (o != Orphanhood::kNone) orphans_.push_back({std::move(t), o == Orphanhood::kBeatStale});
  }
}

void StudyRunner::beat() {
  for (int64_t id : running_.ids()) {
    const auto sent = BeatWatch::Clock::now();
    try {
      storage_.record_heartbeat(id, guard_);
      watch_.beat(id, sent);
    } catch (const OwnershipLost& e) {
      lost_.mark(id, e.holder);  // its runner stops the trainer
    } catch (const TrialNotRunning& e) {
      // The database answered, so this worker is not cut off: its runner,
      // not the beat watch, stops the trainer and says why.
      watch_.beat(id, sent);
      lost_.mark_ended(id, e.state);
    } catch (const StorageError&) {
      // A missed beat is retried next period; the trial itself goes on.
    }
  }
}

// The trainer of a run that died was killed with it, but processes it
// started may still hold the trial's directory, checkpoint or GPU. They must
// be gone before the trial's new trainer starts.
void StudyRunner::end_earlier_trainer(const TrialPlan& plan) {
  const Owner& earlier = plan.earlier_trainer->process;
  const std::string here = current_owner().host;
  if (!in_this_pid_namespace(earlier)) {
    // Its pid means nothing here, and may belong to one of this host's
    // processes: what it left on its own host is that host's to end.
    const std::string where =
        earlier.host != here ? "not on " + here : "not in this PID namespace and boot of " + here;
    progress_.note("trial " + std::to_string(plan.number) + ": its earlier trainer ran on host " +
                   (earlier.host.empty() ? "(unknown)" : earlier.host) + " (pid " +
                   std::to_string(earlier.pid) + "), " + where + ": nothing signalled here");
    return;
  }
  const size_t ended = end_leftover_trainer(
      *plan.earlier_trainer, std::chrono::duration<double>(config_.trainer.grace_period_s));
  if (ended > 0) {
    progress_.note("trial " + std::to_string(plan.number) + ": ended " + std::to_string(ended) +
                   " process(es) its trainer left running when its run died");
  }
}

void StudyRunner::give_up(std::exception_ptr error) {
  launching_ = false;
  if (!error_) error_ = error;
}

std::string StudyRunner::count_result(const TrialResult& result, bool resumed,
                                      RunSummary& summary) {
  if (resumed) ++summary.resumed;
  if (result.interrupted)
    ++summary.interrupted;
  else if (result.state == TrialState::kComplete)
    ++summary.completed;
  else if (result.state == TrialState::kPruned)
    ++summary.pruned;
  else
    ++summary.failed;
  const int finished = summary.completed + summary.pruned + summary.failed;
  if (is_no_cuda(result.reason) && summary.gave_up.empty()) {
    // Every later trial would fail the same way, or (given another slot)
    // train on the CPU: stop rather than run the sweep where it was not
    // meant, and say so even when nothing was left to launch.
    launching_ = false;
    summary.gave_up_no_cuda = true;
    summary.gave_up = "the trainer cannot use the GPU of its slot: " + result.reason +
                      ". Build hpo-trainer against a CUDA LibTorch (tools/setup.sh does when "
                      "python3 has a CUDA torch; docs/hpo-trainer.md, Building against CUDA), or "
                      "run on the CPU with --gpu-profile cpu";
    return summary.gave_up;
  }
  if (is_bad_env(result.reason) && summary.gave_up.empty()) {
    // The same environment goes to every trial: each would fail the same way.
    launching_ = false;
    summary.gave_up_bad_env = true;
    summary.gave_up = config_.path +
                      ": env: the trainer refuses a setting every trial gets: " + result.reason +
                      "; fix the study file's env (hpo doctor runs the trainer "
                      "once on it)";
    return summary.gave_up;
  }
  const bool too_many =
      (limit_.count > 0 && summary.failed >= limit_.count) ||
      (limit_.fraction > 0 && finished >= 4 && summary.failed >= limit_.fraction * finished);
  if (too_many && summary.gave_up.empty() && launching_ && (budget_ > 0 || !orphans_.empty())) {
    launching_ = false;  // running trials finish; nothing new starts
    summary.gave_up = std::to_string(summary.failed) + " of " + std::to_string(finished) +
                      " trials failed; last: " + result.reason;
    return summary.gave_up;
  }
  return "";
}

// Neither a failure nor a result of ours: the trial is the new owner's to
// finish, or was ended by another client (an Optuna worker's
// fail_stale_trials, say), and our trainer is already stopped.
void StudyRunner::note_gone(const TrialPlan& plan, const TrialResult& result, RunSummary& summary) {
  const std::string trial = "trial " + std::to_string(plan.number) + ": ";
  if (result.taken_over) {
    ++summary.taken_over;
    const Owner owner = Owner::from_json(*result.taken_over);
    progress_.trial_gone(trial + "taken over by " +
                         (owner.host.empty() ? "(unknown)" : owner.host) + " (owner " +
                         result.taken_over->dump() + "); stopped its trainer here");
    return;
  }
  ++summary.ended_elsewhere;
  progress_.trial_gone(trial + "set to " + to_string(*result.ended_elsewhere) +
                       " by another client while it ran; " + result.reason);
}

// A trial whose trainer was stopped while this worker was cut off from the
// database runs again here, first of all, if it is still ours once the
// database answers (nobody took it over meanwhile): no trial is failed for
// an outage. Otherwise sets in `result` its new owner, or, if it is still
// ours but ended, the state another client gave it.
void StudyRunner::queue_again(const TrialPlan& plan, TrialResult& result) {
  progress_.note("trial " + std::to_string(plan.number) + ": " + result.reason +
                 "; it runs again once the database answers, unless another host took it over");
  std::optional<TrialRecord> trial = storage_.trial(plan.trial_id);
  nlohmann::json holder = nullptr;
  if (trial) {
    const auto it = trial->system_attrs.find(kOwnerAttr);
    if (it != trial->system_attrs.end()) holder = it->second;
  }
  if (!trial || holder != owner_) {
    result.taken_over = holder;
    return;
  }
  if (trial->state != TrialState::kRunning) {
    result.ended_elsewhere = trial->state;
    result.reason = "stopped its trainer";
    return;
  }
  progress_.trial_waits();  // until a worker takes it back, and starts it again
  std::lock_guard<std::mutex> lock(mu_);
  running_.remove(plan.trial_id);
  orphans_.push_front({std::move(*trial), false});  // ours: taken back at once
}

void StudyRunner::worker(TrialRunner& runner, const Slot& slot, UtilizationSampler* utilization,
                         RunSummary& summary) {
  while (true) {
    std::optional<TrialPlan> plan;
    bool resumed = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // The plan's trial gets its first beat in the call that makes it.
      auto sent = BeatWatch::Clock::now();
      try {
        plan = next_plan(slot, resumed, sent, summary);
      } catch (...) {
        give_up(std::current_exception());
        return;
      }
      if (plan) {
        running_.add(plan->trial_id);
        watch_.beat(plan->trial_id, sent);
      }
    }
    if (!plan) return;
    const TrialEnd forget{[this, id = plan->trial_id] { watch_.forget(id); }};
    progress_.trial_started(plan->number, (resumed ? "(resumed) " : "") + plan->summary);
    TrialResult result;
    try {
      if (plan->earlier_trainer) end_earlier_trainer(*plan);
      const bool measure = utilization && slot.gpu;
      const int measurement = measure ? utilization->start(*slot.gpu) : -1;
      result = runner.run(*plan);
      if (measure) {
        const UtilizationStats u = utilization->stop(measurement);
        if (u.samples > 0) {
          storage_.set_trial_system_attr(plan->trial_id, kGpuUseAttr,
                                         {{"gpu", u.gpu},
                                          {"slot", slot.name},
                                          {"samples", u.samples},
                                          {"mean_util_pct", u.mean_util_pct},
                                          {"mean_mem_mib", u.mean_mem_mib}},
                                         guard_);
        }
      }
      if (result.cut_off) queue_again(*plan, result);
    } catch (const OwnershipLost& e) {
      result.taken_over = e.holder;
    } catch (...) {
      // A storage or file-system error: stop handing out trials, let the
      // other workers finish theirs, then report it.
      std::lock_guard<std::mutex> lock(mu_);
      running_.remove(plan->trial_id);
      give_up(std::current_exception());
      return;
    }
    const bool gone = result.taken_over || result.ended_elsewhere;
    if (result.cut_off && !gone) continue;  // queued to run again
    if (gone) {
      std::lock_guard<std::mutex> lock(mu_);
      running_.remove(plan->trial_id);
      note_gone(*plan, result, summary);
      continue;
    }
    std::string stopping;
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_.remove(plan->trial_id);
      stopping = count_result(result, resumed, summary);
    }
    progress_.trial_finished(plan->number, result.state, result.value, result.reason,
                             result.seconds, result.values, result.feasible);
    // After the trial's line, so that the counts beside it include the trial.
    if (!stopping.empty()) progress_.note("stopping the study: " + stopping);
    if (result.report_burst_at_exit > 0 && !warned_report_burst_.exchange(true)) {
      progress_.note(
          "trial " + std::to_string(plan->number) + ": its " +
          std::to_string(result.report_burst_at_exit) +
          " epoch lines reached the report file all at once, as its trainer ended: is the "
          "file flushed after each line? Until then pruning and hpo status see nothing "
          "(docs/trainer-protocol.md)");
    }
    if (result.not_served && !warned_not_served_.exchange(true)) {
      progress_.note(
          "trial " + std::to_string(plan->number) +
          ": trainer.serve is true, but the trainer exited after the trial instead of "
          "replying {\"exit\": N} on its stdout: it does not serve, so every trial "
          "starts a process of its own, with its stdout lost (docs/trainer-protocol.md)");
    }
  }
}

RunSummary StudyRunner::run(int n_trials, const std::vector<Slot>& slots, FailureLimit limit,
                            UtilizationSampler* utilization) {
  const int n_jobs = static_cast<int>(slots.size());
  budget_ = n_trials;
  limit_ = limit;
  find_orphans();
  if (!orphans_.empty()) {
    progress_.expect_more(static_cast<int>(orphans_.size()));
    progress_.note(
        "found " + std::to_string(orphans_.size()) +
        " trial(s) left RUNNING by a run that was stopped or died; running them again first");
  }

  RunSummary summary;
  TrialRunner runner(
      storage_, config_.trainer, study_goals(config_), stop_,
      [this](const TrialPlan& plan) { return should_prune(plan); }, &lost_, &watch_);
  // Workers mostly wait on trainers, so there may be more of them than
  // cores: raise TBB's limit to one thread per job plus this one.
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism,
                              static_cast<size_t>(n_jobs) + 1);
  tbb::task_arena arena(n_jobs, 1);

  {
    Periodic ticker(std::chrono::seconds(1), [this] { progress_.tick(); });
    Periodic heartbeat(
        std::chrono::milliseconds(static_cast<int64_t>(config_.heartbeat_interval_s * 1000)),
        [this] { beat(); });
    // Its own thread: a cut-off worker's heartbeat thread may hang in storage.
    Periodic watchdog(std::chrono::milliseconds(std::clamp<int64_t>(
                          static_cast<int64_t>(config_.heartbeat_interval_s * 1000 / 8), 10, 1000)),
                      [this] { watch_.check(BeatWatch::Clock::now()); });
    arena.execute([&] {
      tbb::task_group group;
      for (const Slot& slot : slots) group.run([&] { worker(runner, slot, utilization, summary); });
      group.wait();
    });
  }
  progress_.finish();
  if (error_) std::rethrow_exception(error_);
  return summary;
}

}  // namespace hpo
