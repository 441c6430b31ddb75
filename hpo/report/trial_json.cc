#include "hpo/report/trial_json.h"

#include <cmath>
#include <set>
#include <sstream>

#include "hpo/report/host_summary.h"
#include "hpo/report/pareto_view.h"
#include "hpo/run/stderr_summary.h"
#include "hpo/run/trial_config.h"
#include "hpo/storage/optuna_codec.h"
#include "hpo/storage/trial_attrs.h"
#include "hpo/storage/trial_constraints.h"

namespace hpo {

namespace {

// JSON has no NaN or infinities: those are the strings the trial's metrics
// use (trial_runner.cc), "nan" included.
nlohmann::ordered_json value_json(const std::optional<double>& v) {
  if (!v) return nullptr;
  if (std::isfinite(*v)) return *v;
  if (std::isnan(*v)) return "nan";
  return *v > 0 ? "inf" : "-inf";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

constexpr TrialState kStates[] = {TrialState::kComplete, TrialState::kFail, TrialState::kPruned,
                                  TrialState::kRunning, TrialState::kWaiting};

nlohmann::ordered_json counts_json(const std::map<TrialState, int>& counts) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (auto s : kStates) {
    const auto it = counts.find(s);
    j[to_string(s)] = it == counts.end() ? 0 : it->second;
  }
  return j;
}

nlohmann::ordered_json text_or_null(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

nlohmann::ordered_json hosts_json(const StudyView& view) {
  nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
  for (const auto& h : host_summaries(view)) {
    hosts.push_back(
        {{"host", text_or_null(h.host)},
         {"counts", counts_json(h.counts)},
         {"mean_duration_s", h.timed > 0 ? nlohmann::ordered_json(h.mean_seconds) : nullptr}});
  }
  return hosts;
}

std::string json_text(const nlohmann::json& j) {
  return j.is_string() ? j.get<std::string>() : j.dump();
}

// A column name not yet in `taken`: `name`, else `prefix + name`, else that
// with _2, _3, ... The objective's metric is also a trial metric (the final
// report holds it), and a metric may be called "number" or "param_lr":
// spreadsheets and csv.DictReader keep only one column of a name.
std::string unique_column(const std::string& name, const std::string& prefix,
                          std::set<std::string>& taken) {
  std::string column = taken.count(name) ? prefix + name : name;
  for (int n = 2; taken.count(column); ++n) column = prefix + name + "_" + std::to_string(n);
  taken.insert(column);
  return column;
}

}  // namespace

nlohmann::ordered_json trial_json(const TrialRecord& t) {
  nlohmann::ordered_json j;
  j["number"] = t.number;
  j["state"] = to_string(t.state);
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& [name, value] : params_as_run(t)) params[name] = param_value_to_json(value);
  j["params"] = params;
  if (t.system_attrs.count(kRanOutsideSpaceAttr)) {
    // What ran is not in the search space: say what was sampled, too.
    j["sampled_params"] = trial_config(t.params, {});
  }
  j["value"] = value_json(t.value);
  if (t.values.size() > 1) {
    j["values"] = nlohmann::ordered_json::array();
    for (double v : t.values) j["values"].push_back(value_json(v));
  }
  const auto constraints = trial_constraints(t.system_attrs);
  if (!constraints.empty()) {
    j["constraints"] = constraints;
    j["feasible"] = is_feasible(constraints);
  }
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  for (const auto& [k, v] : t.user_attrs) metrics[k] = v;
  j["metrics"] = metrics;
  nlohmann::ordered_json intermediate = nlohmann::ordered_json::object();
  for (const auto& [step, v] : t.intermediate) intermediate[std::to_string(step)] = value_json(v);
  j["intermediate"] = intermediate;
  const double seconds = trial_seconds(t);
  j["duration_s"] =
      seconds >= 0 ? nlohmann::ordered_json(seconds) : nlohmann::ordered_json(nullptr);
  j["datetime_start"] = t.datetime_start;
  j["datetime_complete"] = t.datetime_complete.empty()
                               ? nlohmann::ordered_json(nullptr)
                               : nlohmann::ordered_json(t.datetime_complete);
  const std::string reason = system_attr_text(t, kFailReasonAttr);
  if (!reason.empty()) j["fail_reason"] = reason;
  const std::string tail = system_attr_text(t, kStderrTailAttr);
  if (!reason.empty() && !tail.empty()) {
    j["stderr_last_line"] = last_meaningful_line(tail);  // what hpo status's note shows
    j["stderr_tail"] = tail;
  }
  const auto bad_lines = t.system_attrs.find(kInvalidReportLinesAttr);
  if (bad_lines != t.system_attrs.end()) j["bad_report_lines"] = bad_lines->second;
  const auto pruned_at = t.system_attrs.find(kPrunedAtStepAttr);
  if (pruned_at != t.system_attrs.end()) j["pruned_at_step"] = pruned_at->second;
  const auto gpu = t.system_attrs.find(kGpuUseAttr);
  if (gpu != t.system_attrs.end()) j["gpu"] = gpu->second;
  const std::string dir = system_attr_text(t, kTrialDirAttr);
  if (!dir.empty()) j["trial_dir"] = dir;
  j["host"] = text_or_null(trial_host(t));
  j["slot"] = text_or_null(trial_slot(t));
  return j;
}

nlohmann::ordered_json study_json(const StudyView& view) {
  nlohmann::ordered_json j;
  j["study"] = view.study.name;
  j["direction"] = view.study.direction == Direction::kMaximize ? "maximize" : "minimize";
  j["metric"] = view.metric;
  j["sampler"] = view.sampler;  // null when no run recorded it
  std::map<TrialState, int> counts;
  for (const auto& t : view.trials) ++counts[t.state];
  j["counts"] = counts_json(counts);
  j["hosts"] = hosts_json(view);
  // Prior observations are not this study's trials: only their count shows.
  if (!view.warm_start.is_null()) j["warm_start"] = view.warm_start;
  const bool multi = is_multi_objective(view.study);
  std::set<int> front;
  if (multi) {
    j["directions"] = nlohmann::ordered_json::array();
    for (Direction d : view.study.directions)
      j["directions"].push_back(d == Direction::kMaximize ? "maximize" : "minimize");
    j["metrics"] = view.metrics;
    front = pareto_numbers(view);
    j["pareto_front"] = front;  // trial numbers: Optuna's best_trials
    j["best"] = nullptr;  // no single best: see pareto_front
  } else {
    const auto best = best_trials(view, 1);
    j["best"] = best.empty() ? nlohmann::ordered_json(nullptr) : trial_json(*best.front());
  }
  j["trials"] = nlohmann::ordered_json::array();
  for (const auto& t : view.trials) {
    auto trial = trial_json(t);
    if (multi) trial["pareto"] = front.count(t.number) > 0;
    // State stays Optuna's word; scripts test this flag for a trial nothing runs.
    if (view.orphaned.count(t.id) > 0) trial["orphaned"] = true;
    j["trials"].push_back(std::move(trial));
  }
  j["orphaned"] = view.orphaned.size();
  return j;
}

std::string trials_csv(const StudyView& view) {
  // Columns: the union of param and metric names, in first-seen order.
  std::vector<std::string> params, metrics;
  std::set<std::string> seen_params, seen_metrics;
  for (const auto& t : view.trials) {
    for (const auto& p : t.params) {
      if (seen_params.insert(p.name).second) params.push_back(p.name);
    }
    for (const auto& [k, v] : t.user_attrs) {
      if (seen_metrics.insert(k).second) metrics.push_back(k);
    }
  }
  // The fixed columns keep their names; the objective's, the params' and
  // the metrics' give way, in that order, when a name is taken.
  // A study with several objectives gets a column per objective, in study
  // order (Optuna's values), and a pareto column: 1 on the front.
  // A study with constraints gets a feasible column: 1 for a COMPLETE trial
  // inside them, 0 for one that breaks one (never to be deployed).
  const bool multi = is_multi_objective(view.study);
  const bool constrained = has_constraints(view.trials);
  std::set<std::string> taken = {"number", "state", "duration_s", "fail_reason"};
  if (multi) taken.insert("pareto");
  if (constrained) taken.insert("feasible");
  std::vector<std::string> header = {"number", "state"};
  const std::vector<std::string> objectives = multi ? view.metrics : std::vector{view.metric};
  for (const auto& name : objectives) header.push_back(unique_column(name, "objective_", taken));
  if (multi) header.push_back("pareto");
  if (constrained) header.push_back("feasible");
  for (const auto& p : params) header.push_back(unique_column("param_" + p, "", taken));
  for (const auto& m : metrics) header.push_back(unique_column(m, "metric_", taken));
  header.insert(header.end(), {"duration_s", "fail_reason"});
  const std::set<int> front = multi ? pareto_numbers(view) : std::set<int>{};
  std::ostringstream out;
  for (size_t i = 0; i < header.size(); ++i) out << (i > 0 ? "," : "") << csv_field(header[i]);
  out << "\n";
  for (const auto& t : view.trials) {
    const auto j = trial_json(t);
    out << t.number << "," << to_string(t.state);
    if (multi) {
      for (size_t k = 0; k < objectives.size(); ++k)
        out << "," << (k < t.values.size() ? json_text(value_json(t.values[k])) : "");
      out << "," << front.count(t.number);
    } else {
      out << "," << (t.value ? json_text(j["value"]) : "");
    }
    if (constrained) {
      out << ",";
      if (t.state == TrialState::kComplete)
        out << (is_feasible(trial_constraints(t.system_attrs)) ? "1" : "0");
    }
    for (const auto& p : params)
      out << "," << (j["params"].contains(p) ? csv_field(json_text(j["params"][p])) : "");
    for (const auto& m : metrics)
      out << "," << (j["metrics"].contains(m) ? csv_field(json_text(j["metrics"][m])) : "");
    out << "," << (j["duration_s"].is_null() ? "" : json_text(j["duration_s"]));
    out << "," << csv_field(j.value("fail_reason", "")) << "\n";
  }
  return out.str();
}

}  // namespace hpo
