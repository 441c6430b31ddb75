#include "hpo/report/study_view.h"

#include <algorithm>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"
#include "hpo/report/pareto_view.h"
#include "hpo/run/orphans.h"
#include "hpo/run/study_setup.h"
#include "hpo/run/trial_config.h"
#include "hpo/storage/optuna_codec.h"
#include "hpo/storage/trial_attrs.h"
#include "hpo/storage/trial_constraints.h"

namespace hpo {

double datetime_seconds(const std::string& text) {
  std::tm tm = {};
  std::istringstream in(text);
  in >> std::get_time(&tm, "%Y-%m-%d %H:%M:%S");
  if (in.fail()) return -1;
  double seconds = static_cast<double>(timegm(&tm));
  const auto dot = text.find('.');
  if (dot != std::string::npos) seconds += std::stod("0" + text.substr(dot));
  return seconds;
}

void mark_orphans(Storage& storage, StudyView& view, double heartbeat_interval_s) {
  const std::set<int64_t> stale =
      stale_beats(storage, view.study.id, view.trials, heartbeat_interval_s);
  for (const auto& t : view.trials)
    if (orphanhood(t, stale) != Orphanhood::kNone) view.orphaned.insert(t.id);
}

std::vector<std::pair<std::string, double>> time_split(const TrialRecord& trial) {
  std::vector<std::pair<std::string, double>> split;
  for (const char* key : {"load_s", "data_s", "train_s", "valid_s", "test_s", "cuda_init_s"}) {
    const auto it = trial.user_attrs.find(key);
    if (it != trial.user_attrs.end() && it->second.is_number())
      split.emplace_back(key, it->second.get<double>());
    else if (split.size() < 5)
      return {};  // the five parts come together, or the split means nothing
  }
  return split;
}

std::string state_text(const StudyView& view, const TrialRecord& trial) {
  if (view.orphaned.count(trial.id) > 0) return "RUNNING (orphaned: resumes on the next run)";
  return to_string(trial.state);
}

StudyView load_study_view(Storage& storage, const std::string& name) {
  const auto study = storage.find_study(name);
  if (!study) {
    // A misspelt --study is bad input (exit 2), not a database fault.
    std::vector<std::string> known;
    for (const auto& s : storage.list_studies()) known.push_back(s.study.name);
    throw ConfigError(storage.url() + ": no study named '" + name + "'" +
                      (known.empty()
                           ? " (the database has no studies)"
                           : did_you_mean(name, known) + "; studies: " + join_names(known)));
  }
  StudyView view;
  view.study = *study;
  const Attrs attrs = storage.study_user_attrs(study->id);
  const auto objective = attrs.find("hpo:objective");
  if (objective != attrs.end() && objective->second.is_object()) {
    view.metric = objective->second.value("metric", view.metric);
    const auto rec = objective->second.find("record");
    if (rec != objective->second.end() && rec->is_array()) {
      for (const auto& r : *rec) {
        if (r.is_string()) view.record.push_back(r.get<std::string>());
      }
    }
  }
  const size_t n = objective_directions(view.study).size();
  if (objective != attrs.end() && objective->second.is_object()) {
    for (const auto& m : objective->second.value("metrics", nlohmann::json::array())) {
      if (m.is_string()) view.metrics.push_back(m.get<std::string>());
    }
  }
  if (view.metrics.size() != n) {
    view.metrics.clear();
    for (size_t k = 0; k < n; ++k)
      view.metrics.push_back(n == 1 ? view.metric : "values_" + std::to_string(k));
  }
  view.metric = view.metrics.front();
  const auto warm = attrs.find("hpo:warm_start");
  if (warm != attrs.end()) view.warm_start = warm->second;
  const auto sampler = attrs.find(kSamplerAttr);
  if (sampler != attrs.end()) view.sampler = sampler->second;
  view.trials = storage.trials(study->id);
  return view;
}

StudyView on_objective(StudyView view, size_t k) {
  if (k == 0) return view;  // values[0] is already each trial's value
  view.metric = view.metrics.at(k);
  view.study.direction = objective_directions(view.study).at(k);
  for (auto& t : view.trials)
    t.value = k < t.values.size() ? std::optional<double>(t.values[k]) : std::nullopt;
  return view;
}

std::vector<const TrialRecord*> best_trials(const StudyView& view, size_t k) {
  std::vector<const TrialRecord*> complete;
  for (const auto& t : view.trials) {
    if (t.state == TrialState::kComplete && t.value && trial_feasible(t)) complete.push_back(&t);
  }
  const bool maximize = view.study.direction == Direction::kMaximize;
  std::stable_sort(complete.begin(), complete.end(),
                   [maximize](const TrialRecord* a, const TrialRecord* b) {
                     return maximize ? *a->value > *b->value : *a->value < *b->value;
                   });
  if (complete.size() > k) complete.resize(k);
  return complete;
}

double trial_seconds(const TrialRecord& trial) {
  const auto stored = trial.system_attrs.find(kDurationAttr);
  if (stored != trial.system_attrs.end() && stored->second.is_number())
    return stored->second.get<double>();
  if (trial.datetime_complete.empty()) return -1;
  const double start = datetime_seconds(trial.datetime_start);
  const double end = datetime_seconds(trial.datetime_complete);
  return start < 0 || end < 0 ? -1 : end - start;
}

std::vector<std::pair<std::string, ParamValue>> params_as_run(const TrialRecord& trial) {
  const auto outside = trial.system_attrs.find(kRanOutsideSpaceAttr);
  const auto config = trial.system_attrs.find(kTrialConfigAttr);
  const bool ran_other = outside != trial.system_attrs.end() && outside->second.is_array() &&
                         config != trial.system_attrs.end() && config->second.is_object();
  std::vector<std::pair<std::string, ParamValue>> params;
  for (const auto& p : trial.params) {
    const bool from_config = ran_other && config->second.contains(p.name);
    params.emplace_back(p.name, from_config ? param_value_from_json(config->second.at(p.name))
                                            : to_external(p.distribution, p.internal));
  }
  return params;
}

std::string system_attr_text(const TrialRecord& trial, const std::string& key) {
  const auto it = trial.system_attrs.find(key);
  if (it == trial.system_attrs.end()) return "";
  return it->second.is_string() ? it->second.get<std::string>() : it->second.dump();
}

}  // namespace hpo
