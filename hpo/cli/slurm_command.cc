// `hpo slurm`: runs a study on a Slurm cluster as a job array of `hpo run`
// workers. The script is built in hpo/slurm; this file gathers the flags,
// writes the script beside the study's runs and hands it to sbatch.
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

#include "hpo/cli/at_least.h"
#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/study_locator.h"
#include "hpo/config/config_error.h"
#include "hpo/gpu/command_output.h"
#include "hpo/launch/program_path.h"
#include "hpo/slurm/private_file.h"
#include "hpo/slurm/sbatch_script.h"
#include "hpo/slurm/shell_quote.h"
#include "hpo/storage/open_storage.h"

namespace hpo {

namespace {

namespace fs = std::filesystem;

struct SlurmFlags {
  std::string study;
  int workers = 0;
  int trials_per_worker = 0;
  std::string storage;
  std::string runs_dir;
  SbatchRequest sbatch;  // the sbatch options, filled in by CLI11
  bool dry_run = false;
};

std::string utc_stamp(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// Every check happens before anything is written or submitted.
SbatchRequest make_request(const SlurmFlags& flags, int& study_trials) {
  const StudyConfig config = load_study(flags.study);
  study_trials = config.n_trials;
  SbatchRequest r = flags.sbatch;
  r.study = flags.study;
  r.study_name = config.name;
  r.workers = flags.workers;
  // Enough trials per worker that the workers together run the study's n_trials.
  r.trials_per_worker = flags.trials_per_worker > 0
                            ? flags.trials_per_worker
                            : (config.n_trials + flags.workers - 1) / flags.workers;
  r.storage = storage_url(flags.storage, config);
  check_storage_url(r.storage);  // the workers would all fail on it
  r.project_dir = fs::current_path().string();
  r.hpo = fs::read_symlink("/proc/self/exe").string();
  r.runs_dir = fs::absolute(flags.runs_dir.empty() ? config.runs_dir : flags.runs_dir)
                   .lexically_normal()
                   .string();
  r.output_dir = (fs::path(r.runs_dir) / config.name / "slurm").string();
  r.written_at = utc_stamp("%Y-%m-%d %H:%M:%S UTC");
  if (std::string problem = sbatch_request_problem(r); !problem.empty()) throw ConfigError(problem);
  if (std::string problem = sqlite_array_problem(r); !problem.empty()) throw ConfigError(problem);
  refuse_sqlite_on_network_fs(r.storage);
  return r;
}

void write_private(const std::string& path, const std::string& text, const char* what) {
  if (const int error = write_private_file(path, text); error != 0)
    throw ConfigError(path + ": cannot write the " + what + ": " + std::strerror(error));
}

// The env file holds the storage URL, maybe with a password, and the script
// names the env file: both only for their owner's eyes (the array's tasks run
// as the owner). Returns the script's path. Each pair gets names of its own,
// so that two submissions in one second do not collide.
std::string write_files(SbatchRequest& r, const std::string& stem) {
  std::error_code ec;
  fs::create_directories(r.output_dir, ec);
  for (int n = 1;; ++n) {
    const std::string base = stem + (n == 1 ? "" : "-" + std::to_string(n));
    r.env_file = base + ".env";
    const int error = write_private_file(r.env_file, storage_env_text(r.storage));
    if (error == EEXIST && n < 100) continue;
    if (error != 0)
      throw ConfigError(r.env_file +
                        ": cannot write the workers' storage: " + std::strerror(error));
    write_private(base + ".sbatch", sbatch_script(r), "sbatch script");
    return base + ".sbatch";
  }
}

int submit(const SlurmFlags& flags) {
  int study_trials = 0;
  SbatchRequest r = make_request(flags, study_trials);
  const std::string stem = r.output_dir + "/hpo-" + r.study_name + "-" + utc_stamp("%Y%m%d-%H%M%S");
  const int total = r.workers * r.trials_per_worker;
  std::cout << r.workers << " worker(s) x " << r.trials_per_worker << " trial(s) = " << total
            << " trial(s) (the study file asks for " << study_trials << "), storage "
            << shown_url(r.storage) << "\n";
  if (flags.dry_run) {
    r.env_file = stem + ".env";
    std::cout << "dry run: would write " << r.env_file << " (mode 0600):\n\n"
              << storage_env_text(shown_url(r.storage)) << "\nand " << stem << ".sbatch:\n\n"
              << sbatch_script(r) << "\nand run: sbatch --parsable "
              << shell_quote(stem + ".sbatch") << "\n";
    return kExitOk;
  }
  const std::string path = write_files(r, stem);
  const std::string sbatch = resolve_program("sbatch");
  if (sbatch.empty())
    throw ConfigError("sbatch was not found in PATH (is this a Slurm login node?); the script is " +
                      path);
  const CommandOutput out = run_command({sbatch, "--parsable", path}, 60);
  if (!out.ok()) {
    std::cerr << "hpo: error: sbatch " << path << " failed: " << out.problem() << "\n" << out.err;
    return kExitBadInput;
  }
  const std::string job = out.out.substr(0, out.out.find_first_of(";\n"));
  std::cout << "submitted job " << job << " (" << path << ")\n"
            << "watch it:  squeue -j " << job << "\n"
            << "progress:  hpo status --study " << r.study << " --storage " << shown_url(r.storage)
            << "\n"
            << "output:    " << r.output_dir << "/" << job << "_TASK.out\n";
  return kExitOk;
}

}  // namespace

void add_slurm_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<SlurmFlags>();
  SbatchRequest& s = flags->sbatch;
  CLI::App* cmd = app.add_subcommand(
      "slurm", "Run a study on a Slurm cluster: a job array of `hpo run` workers");
  cmd->add_option("--study", flags->study, "Study name (studies/NAME.yaml) or path to a study file")
      ->required();
  cmd->add_option("--workers", flags->workers, "Array tasks, each one `hpo run` worker")
      ->required()
      ->check(at_least(1));
  cmd->add_option("--trials-per-worker", flags->trials_per_worker,
                  "Trials each worker runs (default: the study's n_trials / workers, rounded up)")
      ->check(at_least(1));
  cmd->add_option("--storage", flags->storage,
                  "Study database URL every worker uses; PostgreSQL for workers on several nodes "
                  "(default: $HPO_STORAGE, else the study file's, else sqlite:///hpo.db)");
  cmd->add_option(
      "--runs-dir", flags->runs_dir,
      "Where trial directories go; the script and each task's output go to RUNS_DIR/STUDY/slurm "
      "(default: the study file's runs_dir)");
  cmd->add_option("--partition", s.partition, "sbatch --partition");
  cmd->add_option("--account", s.account, "sbatch --account");
  cmd->add_option("--nodelist", s.nodelist,
                  "sbatch --nodelist; exactly one node pins the array there (SQLite allowed)");
  cmd->add_option("--gres", s.gres,
                  "sbatch --gres per worker, e.g. gpu:1 (the worker detects the GPUs it gets)");
  cmd->add_option("--time", s.time, "sbatch --time per worker, e.g. 12:00:00");
  cmd->add_option("--cpus-per-task", s.cpus_per_task, "sbatch --cpus-per-task per worker")
      ->check(at_least(1));
  cmd->add_option("--mem", s.mem, "sbatch --mem per worker, e.g. 32G");
  cmd->add_option("--extra", s.extra,
                  "A further #SBATCH option, e.g. --extra=--qos=long (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--dry-run", flags->dry_run,
                "Print the script and the sbatch command; write and submit nothing");
  cmd->footer(
      "Each array task runs `hpo run --study NAME -n K` in this directory, with HPO_STORAGE read "
      "from a\n"
      "file only you can read (RUNS_DIR/STUDY/slurm/*.env), so the password is in no argv; the "
      "workers\n"
      "share the study through its storage, claim trials one at a time, and take over the trials "
      "of a\n"
      "worker that died once its heartbeat is stale. The script is written to "
      "RUNS_DIR/STUDY/slurm/ and\n"
      "each task's output to RUNS_DIR/STUDY/slurm/JOB_TASK.out. The runs directory and this "
      "directory\n"
      "must be on a file system every node sees. SQLite storage is refused unless the array is "
      "pinned\n"
      "to one node (--nodelist NODE) or has one worker: use PostgreSQL for several nodes.\n\n"
      "Examples:\n"
      "  hpo slurm --study big_sweep --workers 8 --gres gpu:1 --time 12:00:00 \\\n"
      "            --storage postgresql://hpo:secret@db.example.org:5432/hpo\n"
      "  hpo slurm --study quick_sweep --workers 3 --nodelist gpu07     # SQLite, one node\n"
      "  hpo slurm --study big_sweep --workers 4 --partition a100 --extra=--qos=long --dry-run");
  cmd->callback([flags, &exit_code] { exit_code = submit(*flags); });
}

}  // namespace hpo
