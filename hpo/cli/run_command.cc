// `hpo run`: runs N more trials of a study.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hpo/cli/at_least.h"
#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/signals.h"
#include "hpo/cli/study_locator.h"
#include "hpo/config/config_error.h"
#include "hpo/gpu/gpu_context.h"
#include "hpo/gpu/gpu_detect.h"
#include "hpo/gpu/slot_plan.h"
#include "hpo/gpu/space_fit.h"
#include "hpo/gpu/utilization_sampler.h"
#include "hpo/launch/process.h"
#include "hpo/report/study_view.h"
#include "hpo/run/bracket_sampler.h"
#include "hpo/run/mo_sampler_factory.h"
#include "hpo/run/progress.h"
#include "hpo/run/pruner_factory.h"
#include "hpo/run/sampler_factory.h"
#include "hpo/run/space_change.h"
#include "hpo/run/study_runner.h"
#include "hpo/run/study_setup.h"
#include "hpo/run/trainer_check.h"
#include "hpo/run/trainer_program.h"
#include "hpo/run/warm_start.h"
#include "hpo/storage/open_storage.h"
#include "samplers/prior_observations.h"
#include "samplers/sampler_names.h"

namespace hpo {

namespace {

struct RunFlags {
  std::string study;
  int n_trials = -1;  // -1: the study file's
  std::string n_jobs;  // a number or "auto"
  std::string gpu_profile;
  std::string storage;
  std::string sampler;
  std::optional<uint64_t> seed;
  double timeout = -1;
  std::string runs_dir;
  double max_failures = 0;
};

// --max-failures: a count (>= 1) or a fraction of finished trials (< 1).
FailureLimit failure_limit(double flag) {
  FailureLimit limit;
  if (flag >= 1)
    limit.count = static_cast<int>(flag);
  else
    limit.fraction = flag;
  return limit;
}

// Flags override the study file. Every check happens here, before the
// database is touched, so bad input never leaves a trace in it.
// `storage_source` says where config.storage came from (choose_storage).
StudyConfig configure(const RunFlags& flags, std::string& storage_source) {
  StudyConfig config = load_study(flags.study);
  if (flags.n_trials >= 0) config.n_trials = flags.n_trials;
  StorageChoice storage = choose_storage(flags.storage, config);
  config.storage = std::move(storage.url);
  storage_source = std::move(storage.source);
  if (!flags.sampler.empty()) {
    config.sampler.name = flags.sampler;
    config.sampler.options = nlohmann::json::object();  // options belong to the file's sampler
    config.sampler.lines = {};
  }
  if (flags.timeout >= 0) config.trainer.timeout_s = flags.timeout;
  if (!flags.runs_dir.empty()) config.runs_dir = flags.runs_dir;
  if (config.space.params.empty()) {
    throw ConfigError(config.space.path + ": params: the search space has nothing to sample");
  }
  refuse_sqlite_on_network_fs(config.storage);
  return config;
}

// A note when no trial of this run gets past the sampler's random startup.
// With TPE's default of 10, the shipped quick and medium sweeps (5 and 10
// trials, as in the Optuna workflow they come from) are random search, and
// a user who chose TPE should hear that rather than find out.
std::optional<std::string> startup_note(const Sampler& sampler, const StudyView& before,
                                        int n_trials) {
  const int startup = sampler.startup_trials();
  int finished = 0;
  for (const auto& t : before.trials) {
    // An orphaned trial resumes in this run, and finishes with the others.
    finished += t.state == TrialState::kComplete || t.state == TrialState::kPruned ||
                before.orphaned.count(t.id) > 0;
  }
  // A warm-started study's startup is one trial (prior_observations.h).
  if (startup == 0 || !sampler.prior().empty() || finished + n_trials > startup)
    return std::nullopt;
  return sampler.name() + " draws its first " + std::to_string(startup) +
         " finished trials at random, and the study will have " +
         std::to_string(finished + n_trials) +
         " after this run: every trial of it is random search (run more trials, or lower the "
         "study's "
         "sampler.n_startup_trials, for " +
         sampler.name() + " to learn from the results)";
}

// Prints which sampler the run uses and why, and stores it as the study's
// hpo:sampler attribute for `hpo status --json` (an Optuna study user
// attribute, so Optuna reads it too).
void record_sampler_choice(Storage& storage, const PreparedStudy& prepared,
                           const StudyConfig& config, const Sampler& sampler,
                           const SamplerContext& context) {
  nlohmann::json choice = config.objectives.size() > 1
                              ? multi_objective_sampler_choice(config.sampler)
                              : sampler_choice(config.sampler, context);
  // A warm-started study's startup is kWarmStartup (prior_observations.h).
  const bool warm = !sampler.prior().empty() && sampler.startup_trials() > 0;
  const int startup = warm ? kWarmStartup : sampler.startup_trials();
  choice["startup_trials"] = startup;
  std::cout << "sampler " << choice["name"].get<std::string>() << ": "
            << choice["why"].get<std::string>();
  if (startup > 0) std::cout << "; the first " << startup << " trial(s) are startup points";
  if (startup > 0 && dynamic_cast<const BracketSampler*>(&sampler))
    std::cout << " in each Hyperband bracket";
  if (warm) std::cout << " (warm-started)";
  std::cout << "\n";
  storage.set_study_user_attr(prepared.record.id, kSamplerAttr, choice);
}

// How often GPU use is sampled during a run: $HPO_GPU_SAMPLE_PERIOD seconds,
// 5 by default (each sample runs nvidia-smi once for all GPUs).
std::chrono::milliseconds gpu_sample_period() {
  const char* text = std::getenv("HPO_GPU_SAMPLE_PERIOD");
  const double seconds = text ? std::atof(text) : 5.0;
  return std::chrono::milliseconds(static_cast<int64_t>(1000 * (seconds > 0.05 ? seconds : 5.0)));
}

// Where trials run: one slot per (GPU, worker) of the profile, or CPU
// slots; each sets CUDA_VISIBLE_DEVICES and OMP_NUM_THREADS for its trials.
struct Placement {
  GpuContext gpu;
  SlotPlan slots;
  std::vector<std::string> bounded;  // notes on what the profile set or bounded
  SamplingSpace space;  // the profile bounds what is sampled, not the study's distributions
};

// Also sets config.n_jobs to the slots planned, and config.space to the
// space fitted to the profile: trials are stored and configured with it.
Placement place_trials(const RunFlags& flags, StudyConfig& config) {
  GpuContext gpu = resolve_gpu_context(flags.gpu_profile);
  const std::optional<int> jobs = planned_n_jobs(flags.n_jobs, config.n_jobs);
  SlotPlan slots = plan_slots(gpu.detection.devices, gpu.choice.profile, jobs, gpu.cores,
                              cpu_wants(config.env, config.env_fixed));
  config.n_jobs = slots.n_jobs();
  FittedSpace fit = fit_search_space(config.space, gpu.choice.profile);
  config.space = fit.declared;
  SamplingSpace space(config.space.params, std::move(fit.sampled));
  return {std::move(gpu), std::move(slots), std::move(fit.notes), std::move(space)};
}

void print_plan(const StudyConfig& config, const PreparedStudy& prepared, const Sampler& sampler,
                const Pruner& pruner, const Storage& storage, const Placement& p) {
  const SlotPlan& slots = p.slots;
  std::cout << "study " << config.name << (prepared.created ? " (new)" : " (continuing)") << ": "
            << config.n_trials << " new trial(s), " << config.n_jobs << " at a time, sampler "
            << sampler.name() << " (seed " << prepared.seed << "), pruner " << pruner.name()
            << (dynamic_cast<const BracketSampler*>(&sampler)
                    ? " (each bracket's trials sampled apart, as in Optuna)"
                    : "")
            << ", storage " << storage.url() << "\n"
            << "profile " << p.gpu.choice.profile.name << " (" << p.gpu.choice.reason << "), "
            << slots.n_jobs() << " slot(s)"
            << (slots.on_gpu ? " on " + std::to_string(slots.gpus) + " GPU(s)" : " on the CPU")
            << ", " << slots.threads_per_trial << " thread(s) per trial (" << slots.threads_reason
            << "; cores: " << p.gpu.cores_reason << ")"
            << (config.trainer.serve
                    ? ", a trainer process per slot serving its trials (serve: true)"
                    : "")
            << "\n"
            << std::flush;
  for (const auto& w : p.gpu.detection.warnings) std::cout << "warning: " << w << "\n";
  for (const auto& w : slots.warnings) std::cout << "warning: " << w << "\n";
  if (!slots.cpu_warning.empty()) std::cout << "warning: " << slots.cpu_warning << "\n";
  for (const auto& n : slots.fit_notes) std::cout << "note: " << n << "\n";
  for (const auto& b : p.bounded) std::cout << "note: " << b << "\n";
}

void print_summary(const RunSummary& summary, bool stopped, double seconds,
                   const StudyConfig& config, const RunFlags& flags, const Storage& storage) {
  std::cout << "run " << (summary.interrupted > 0 || stopped ? "stopped" : "finished") << " after "
            << Progress::format_duration(seconds) << ": " << summary.completed << " complete, "
            << summary.pruned << " pruned, " << summary.failed << " failed";
  if (summary.ended_elsewhere)
    std::cout << ", " << summary.ended_elsewhere << " ended by another client (not counted)";
  if (summary.resumed) std::cout << ", " << summary.resumed << " resumed from an earlier run";
  if (summary.taken_over)
    std::cout << ", " << summary.taken_over << " taken over by other hosts (this run was cut off)";
  if (summary.interrupted)
    std::cout << ", " << summary.interrupted
              << " interrupted (left RUNNING; the next run resumes them)";
  if (!summary.gave_up.empty())
    std::cout << "\nstopped"
              << (summary.gave_up_no_cuda || summary.gave_up_bad_env ? "" : " by --max-failures")
              << ": " << summary.gave_up;
  std::cout << "\nsee: hpo status --study " << config.name
            << (flags.storage.empty() ? "" : " --storage " + storage.url())
            << "\n";  // its password masked
}

// storage_revision: applies when hpo creates the database; one that exists
// is never downgraded, and its users should know who can open it.
void note_other_revision(const StudyConfig& config, Storage& storage) {
  if (config.storage_revision.empty()) return;
  const std::string revision = storage.schema_revision();
  if (revision == config.storage_revision) return;
  std::cout << "note: " << storage.url() << " is at " << revision << ", not the study's "
            << "storage_revision " << config.storage_revision
            << " (it applies to databases hpo creates): " << revision_readers(revision) << "\n";
}

int exit_code(const RunSummary& summary, const StopFlag& stop) {
  if (stop.load() != kKeepRunning) {
    if (const int lost = lost_output_exit_code()) return lost;
    const int sig = last_stop_signal();
    return sig == SIGTERM || sig == SIGHUP ? 128 + sig : kExitInterrupted;
  }
  if (summary.gave_up_no_cuda) return kExitNoCuda;
  if (summary.gave_up_bad_env) return kExitBadInput;
  if (!summary.gave_up.empty()) return kExitTooManyFailures;
  if (summary.completed == 0 && summary.pruned == 0 && summary.failed + summary.ended_elsewhere > 0)
    return kExitAllTrialsFailed;
  return kExitOk;
}

// What --sampler may name: the study's objectives say which of them fit.
std::vector<std::string> all_sampler_names() {
  std::vector<std::string> names = sampler_names();
  for (const auto& n : multi_objective_sampler_names()) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  return names;
}

// The sampler for the study's objectives: the study file's for one, a
// multi-objective one for several.
std::unique_ptr<Sampler> study_sampler(const StudyConfig& config, uint64_t seed,
                                       const SamplerContext& context = {}) {
  if (config.objectives.size() > 1) {
    std::vector<Direction> directions;
    for (const auto& o : config.objectives) directions.push_back(o.direction);
    return make_multi_objective_sampler(config.sampler, seed, directions, config.path);
  }
  return make_sampler(config.sampler, seed, config.objective.direction, config.path, context);
}

// A study's stored trials and its space today must be what Optuna stores
// side by side (space_change.h): else hpo would write a study Optuna cannot
// open. Checked before anything of this run is stored.
void refuse_incompatible_space(const StudyConfig& config, Storage& storage) {
  if (!storage.find_study(config.name)) return;
  const std::string change =
      incompatible_space_change(load_study_view(storage, config.name).trials, config.space.params);
  if (change.empty()) return;
  const bool batches = change.rfind("'batch_size'", 0) == 0;
  throw ConfigError(
      config.path + ": search space " + config.space.path + ": " + change + " in study '" +
      config.name + "' of " + storage.url() +
      "; Optuna cannot open a study whose trials differ there. Keep what the stored trials had, "
      "or give the study a new name" +
      (batches ? " (a GPU profile's batch_size_choices replace the space's: pinned: true keeps "
                 "the space's, or use the profile the study was run with)"
               : ""));
}

int run(const RunFlags& flags) {
  // Every check first, before the database is touched.
  std::string storage_source;
  StudyConfig config = configure(flags, storage_source);
  const TrainerProgram trainer = find_trainer(config);
  if (trainer.path.empty())
    throw ConfigError(config.path + ": trainer.command: " + trainer.problem);
  // A script or #! interpreter that is not there would fail every trial.
  for (const FileCheck& c : check_trainer_files(config, trainer.path)) {
    if (!c.ok)
      throw ConfigError(config.path + ": trainer.command: " + c.text +
                        " (every trial would fail; hpo doctor checks the trainer)");
  }
  study_sampler(config, 0);  // validates options
  auto pruner = make_pruner(config.pruner, config.path);
  const Placement placement = place_trials(flags, config);

  // -n 0 only resumes: a database or study it would create holds nothing to
  // resume, and is most often a typo in --storage or $HPO_STORAGE.
  const bool resume_only = config.n_trials == 0;
  auto storage =
      open_storage(config.storage, resume_only ? OpenMode::kMustExist : OpenMode::kCreateIfMissing,
                   config.storage_revision.empty() ? kNewestRevision : config.storage_revision);
  if (resume_only && !storage->find_study(config.name)) {
    throw ConfigError("--n-trials 0 only resumes, and " + storage->url() + " (from " +
                      storage_source + ") has no study '" + config.name + "'; nothing was created");
  }
  // Read (and checked) before this study is created: a refused source
  // leaves nothing behind.
  WarmStart warm = load_warm_start(config, *storage, placement.space);
  refuse_incompatible_space(config, *storage);
  const PreparedStudy prepared = prepare_study(*storage, config, flags.seed);
  StudyView before = load_study_view(*storage, config.name);
  mark_orphans(*storage, before, config.heartbeat_interval_s);  // they resume first, below
  const SamplerContext context{static_cast<int>(before.trials.size()) + config.n_trials,
                               placement.space.bounded(), !config.constraints.empty()};
  std::unique_ptr<Sampler> sampler = study_sampler(config, prepared.seed, context);
  if (auto* hyperband = dynamic_cast<HyperbandPruner*>(pruner.get())) {
    // As Optuna: each trial is sampled from its own bracket's trials.
    sampler = std::make_unique<BracketSampler>(
        [&config, &prepared, context] { return study_sampler(config, prepared.seed, context); },
        *hyperband, config.name);
  }
  sampler->tell_prior(std::move(warm.prior));
  print_plan(config, prepared, *sampler, *pruner, *storage, placement);
  for (const auto& line : warm.notes) std::cout << line << "\n";
  for (const auto& line : prepared.notes) std::cout << "note: " << line << "\n";
  // The record says what the last run carried over: null once a run starts
  // cold (status then shows none), so an earlier run's is not taken for it.
  if (!config.warm_start.empty())
    storage->set_study_user_attr(prepared.record.id, kWarmStartAttr, warm.record);
  else if (storage->study_user_attrs(prepared.record.id).count(kWarmStartAttr))
    storage->set_study_user_attr(prepared.record.id, kWarmStartAttr, nullptr);
  record_sampler_choice(*storage, prepared, config, *sampler, context);
  note_other_revision(config, *storage);

  Progress progress(std::cout, ::isatty(STDOUT_FILENO) == 1, config.n_trials,
                    config.objective.metric, config.objective.direction);
  const auto best = best_trials(before, 1);  // points into `before`
  if (config.objectives.size() > 1) {
    std::vector<std::string> metrics;
    for (const auto& o : config.objectives) metrics.push_back(o.metric);
    progress.several_objectives(metrics);
  } else if (!best.empty()) {
    progress.seed_best(*best.front()->value, best.front()->number);
  }
  if (const auto note = startup_note(*sampler, before, config.n_trials))
    std::cout << "note: " << *note << "\n";

  static StopFlag stop{kKeepRunning};
  install_stop_handlers(stop);
  progress.on_output_lost(stop_for_lost_output);
  const auto started = std::chrono::steady_clock::now();
  StudyRunner runner(*storage, config, prepared.record, placement.space, *sampler, *pruner,
                     progress, stop, trainer.path);
  std::unique_ptr<UtilizationSampler> utilization;
  if (placement.slots.on_gpu) {
    utilization =
        std::make_unique<UtilizationSampler>([] { return query_gpus(); }, gpu_sample_period());
  }
  const RunSummary summary = runner.run(config.n_trials, placement.slots.slots,
                                        failure_limit(flags.max_failures), utilization.get());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  print_summary(summary, stop.load() != kKeepRunning, seconds, config, flags, *storage);
  return exit_code(summary, stop);
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* cmd =
      app.add_subcommand("run", "Run N more trials of a study (continues it if it exists)");
  cmd->add_option("--study", flags->study, "Study name (studies/NAME.yaml) or path to a study file")
      ->required();
  cmd->add_option("-n,--n-trials", flags->n_trials,
                  "New trials to run now; interrupted trials are resumed first and not counted, "
                  "so 0 only resumes them (default: the study file's n_trials)")
      ->check(at_least(0));
  cmd->add_option(
      "-j,--n-jobs", flags->n_jobs,
      "Trainers to run at once, or 'auto': one per GPU slot of the profile, or the CPU cores "
      "split between trials (default: the study file's n_jobs)");
  cmd->add_option(
      "--gpu-profile", flags->gpu_profile,
      "GPU profile name or file (default: $GPU_PROFILE, else detected with nvidia-smi, else cpu)");
  cmd->add_option(
      "--storage", flags->storage,
      "Study database URL: sqlite:///hpo.db, or "
      "postgresql://USER:PASSWORD@HOST:PORT/DB for many hosts "
      "(a SQLite file is created if missing, a PostgreSQL database must exist; default: "
      "$HPO_STORAGE, else the study file's, else sqlite:///hpo.db)");
  cmd->add_option("--sampler", flags->sampler,
                  "Sampler: auto (GP, then TPE), tpe, gp or random; with several objectives "
                  "auto, nsga2, tpe or random (default: the study file's, else auto)")
      ->check(CLI::IsMember(all_sampler_names()));
  cmd->add_option("--seed", flags->seed,
                  "Sampler seed (default: the study file's, else the one stored with the study)")
      ->check(seed_value());
  cmd->add_option("--timeout", flags->timeout,
                  "Per-trial timeout in seconds, 0 for none (default: the study file's)")
      ->check(within(0, kMaxSeconds, "1e8"));
  cmd->add_option("--runs-dir", flags->runs_dir,
                  "Where trial directories go (default: the study file's runs_dir)");
  cmd->add_option("--max-failures", flags->max_failures,
                  "Stop launching after N failed trials, or (below 1) once that fraction of "
                  "finished trials failed (default: 0, no limit)")
      ->check(failure_limit_value());
  cmd->footer(
      "Each trial gets a directory RUNS_DIR/STUDY/trial_NNNN with config.json (its values), "
      "report.jsonl\n"
      "(what the trainer reported), stdout.log and stderr.log; a trial run again keeps its "
      "earlier attempt's as *.prev.*.\n"
      "Ctrl-C stops launching trials and sends SIGTERM to running trainers; a second Ctrl-C kills "
      "them.\n"
      "Trials left unfinished (RUNNING in hpo status, orphaned) are resumed with the same "
      "parameters by the next `hpo run`, before its N new trials and not counted in them.\n\n"
      "Examples:\n"
      "  hpo run --study quick_sweep --n-trials 5\n"
      "  hpo run --study studies/my_study.yaml -n 50 -j 4 --storage sqlite:////data/hpo.db\n"
      "  PGPASSWORD=... hpo run --study my_study -n 25 --storage postgresql://hpo@db1:5432/hpo   # "
      "on each host");
  cmd->callback([flags, &exit_code] { exit_code = run(*flags); });
}

}  // namespace hpo
