// A study as the reporting commands see it: its record, its trials and the
// names of its objective and recorded metrics. Read once from storage.
#ifndef HPO_REPORT_STUDY_VIEW_H_
#define HPO_REPORT_STUDY_VIEW_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "hpo/storage/storage.h"

namespace hpo {

struct StudyView {
  StudyRecord study;
  std::string metric = "value";  // the objective's name
  // Every objective's name, in study order (metric is metrics[0]): those
  // hpo's study file gave, else values_0, values_1, ... as Optuna names them.
  std::vector<std::string> metrics;
  std::vector<std::string> record;  // further metrics to show
  std::vector<TrialRecord> trials;  // by number
  // The sampler the last run used and why (the study attribute hpo:sampler,
  // {"name", "uses", "why"}); null for a study no run has recorded it for.
  nlohmann::json sampler;
  // RUNNING trials that nothing runs: their run died or stopped beating
  // (see hpo/run/orphans.h). Filled by mark_orphans.
  std::set<int64_t> orphaned;
  // What the last run carried over from earlier studies (warm_start; see
  // hpo/run/warm_start.h): [{study, storage, trials}]; null when none.
  nlohmann::json warm_start;
};

// Reads the study named `name`; throws StorageError if there is none.
StudyView load_study_view(Storage& storage, const std::string& name);

// The view with objective `k` (an index into view.metrics) as the one the
// single-objective sections show: its name, its direction and each trial's
// value are objective k's. The stored values and directions stay, so the
// Pareto front and the knee are those of every objective.
StudyView on_objective(StudyView view, size_t k);

// Fills view.orphaned, judging each trial's heartbeat by the interval its
// owner recorded, else by `heartbeat_interval_s` (the study file's, or the
// default when there is none).
void mark_orphans(Storage& storage, StudyView& view, double heartbeat_interval_s);

// "RUNNING (orphaned: resumes on the next run)" for an orphan, else the
// trial's state as stored.
std::string state_text(const StudyView& view, const TrialRecord& trial);

// COMPLETE trials, best first by the study's direction (ties: lower number
// first); at most `k` of them. In a study with constraints, only the
// feasible ones: as Optuna 5.0's best_trial, what breaks a constraint must
// not be deployed.
std::vector<const TrialRecord*> best_trials(const StudyView& view, size_t k);

// The trial's run time in seconds, from its stored duration or its
// start and end times; negative when unknown (e.g. still running).
double trial_seconds(const TrialRecord& trial);

// A stored time, "YYYY-MM-DD HH:MM:SS.ffffff" in UTC as Optuna writes it
// (format_datetime), in seconds since the epoch; negative when it does not
// parse. Pages show it in the reader's local time.
double datetime_seconds(const std::string& text);

// A trial's params as they ran, in stored order: the stored values, but for
// a trial whose out-of-memory retry ran outside the search space
// (kRanOutsideSpaceAttr) the values of the config that ran.
std::vector<std::pair<std::string, ParamValue>> params_as_run(const TrialRecord& trial);

// Where a trial's time went, as hpo-trainer reports it: load_s, data_s,
// train_s, valid_s and test_s (all five, else none), then cuda_init_s when
// the trainer ran on CUDA. Empty for a trainer that reports no split.
std::vector<std::pair<std::string, double>> time_split(const TrialRecord& trial);

// A stored system attribute as text ("" if absent).
std::string system_attr_text(const TrialRecord& trial, const std::string& key);

}  // namespace hpo

#endif  // HPO_REPORT_STUDY_VIEW_H_
