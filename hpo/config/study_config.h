// What a study file (studies/*.yaml) and its search space
// (search_spaces/*.yaml) say, after validation. Plain values.
#ifndef HPO_CONFIG_STUDY_CONFIG_H_
#define HPO_CONFIG_STUDY_CONFIG_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hpo/config/option_lines.h"
#include "samplers/param_value.h"
#include "samplers/search_space.h"
#include "samplers/trial_view.h"

namespace hpo {

// A named value that is passed through to the trainer unchanged.
using FixedValues = std::vector<std::pair<std::string, ParamValue>>;

struct SearchSpaceConfig {
  std::string path;  // the file it came from
  SearchSpace params;  // what the sampler chooses
  FixedValues fixed;  // what every trial gets as is
  // Parameters marked `pinned: true`: a GPU profile does not replace their
  // domain (see hpo/gpu/space_fit.h), though its ceilings still apply.
  std::vector<std::string> pinned;
};

struct ObjectiveConfig {
  std::string metric = "val_rank_ic";  // the reported metric to optimize
  Direction direction = Direction::kMaximize;
  std::vector<std::string> record;  // further metrics shown in tables (e.g. val_sharpe)
};

// One objective of a study: the reported metric and its direction.
struct ObjectiveSpec {
  std::string metric;
  Direction direction = Direction::kMaximize;
};

// constraints: [{metric: val_turnover, max: 0.4}]: a trial is feasible
// when the metric is inside its bounds. Stored as Optuna's samplers read
// constraints, one value per bound that is <= 0 when it holds (see
// constraint_values in hpo/run/objectives.h).
struct ConstraintConfig {
  std::string metric;
  std::optional<double> min;
  std::optional<double> max;
};

struct SamplerConfig {
  std::string name = "auto";  // auto | random | tpe | gp (samplers/sampler.h)
  uint64_t seed = 0;
  bool seeded = false;  // false: a seed is drawn and stored with the study
  nlohmann::json options =
      nlohmann::json::object();  // sampler-specific keys, checked by the sampler factory
  OptionLines lines;  // where the file wrote them
};

struct PrunerConfig {
  std::string name = "none";  // none | median | percentile | successive_halving | hyperband
  nlohmann::json options = nlohmann::json::object();  // checked by the pruner factory
  OptionLines lines;  // where the file wrote them
};

struct TrainerConfig {
  // argv; placeholders {config}, {trial_dir}, {trial_number}, {study_name}, {study_dir}
  std::vector<std::string> command;
  double timeout_s = 0;  // per trial; 0 = none
  double grace_period_s = 10;  // after SIGTERM, before SIGKILL
  // on_oom: retry_halved: a trial that ran out of memory runs again at a
  // smaller batch with grad_accum raised to match (see hpo/run/oom.h).
  bool retry_halved_on_oom = false;
  // serve: true: one trainer process per slot runs trial after trial (the
  // serve protocol, docs/trainer-protocol.md), paying its start-up once.
  bool serve = false;
};

// One entry of `warm_start: {studies: [...]}`: "NAME", a study in this
// study's storage, or "NAME@URL", one in the storage at URL.
struct WarmStartSource {
  std::string study;
  std::string storage;  // empty: the study's own storage
};

struct StudyConfig {
  std::string path;  // the study file
  std::string name;
  std::string description;
  SearchSpaceConfig space;  // fixed values of the study file already merged in
  ObjectiveConfig objective;  // objective 0 (the only one unless `objectives` has several)
  // Every objective in study order: `objective` alone, or the study file's
  // `objectives:` list (two or three).
  std::vector<ObjectiveSpec> objectives;
  std::vector<ConstraintConfig> constraints;
  SamplerConfig sampler;
  PrunerConfig pruner;
  // Earlier studies whose COMPLETE trials the sampler starts from, read
  // only (hpo/run/warm_start.h); empty: a cold start.
  std::vector<WarmStartSource> warm_start;
  int n_trials = 10;  // default for `hpo run` without --n-trials
  int n_jobs = 1;
  TrainerConfig trainer;
  std::vector<std::pair<std::string, std::string>> env;  // set for every trial, in file order
  // env_fixed: env settings hpo passes as written instead of fitting them to
  // the cores (NUM_WORKERS, OMP_NUM_THREADS; see hpo/gpu/cpu_fit.h).
  std::vector<std::string> env_fixed;
  // The file's `storage`; empty: not set, and the default, sqlite:///hpo.db
  // in the working directory, applies (hpo/cli/study_locator.h).
  std::string storage;
  // The Optuna schema revision a database this study creates gets: v3.2.0.a
  // (Optuna 3.2-5.0), or v3.0.0.d for Optuna 3.0-3.1 (Debian 12's); empty
  // when the file does not say (the newest).
  std::string storage_revision;
  // smoke: values over a drawn point of the space, for `hpo doctor` to run
  // the trainer once on (a one-step config: {epochs: 1}); unset: no smoke run.
  std::optional<FixedValues> smoke;
  std::string runs_dir = "runs";
  // Seconds between heartbeats of running trials; a trial owned by another
  // host is taken over once its heartbeat is 4 intervals old.
  double heartbeat_interval_s = 30;  // trial directories: <runs_dir>/<study>/trial_<number>
};

// Limits a study's settings keep within, so that what hpo computes from
// them stays meaningful: one thread a slot (a slot past thousands only fails
// to start one), timeouts that a steady clock's nanoseconds hold (int64 runs
// out at about 9.2e9 s), and heartbeats a database can keep up with, whose
// grace (4 intervals) is still a grace.
constexpr int kMaxJobs = 1024;
constexpr double kMaxSeconds = 1e8;  // about 3 years
constexpr double kMinHeartbeatSeconds = 0.5;
constexpr double kMaxHeartbeatSeconds = 86400;

}  // namespace hpo

#endif  // HPO_CONFIG_STUDY_CONFIG_H_
