#include "hpo/report/html/report_data.h"

#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "hpo/report/config_export.h"
#include "hpo/report/host_summary.h"
#include "hpo/report/html/downsample.h"
#include "hpo/report/html/importance_data.h"
#include "hpo/report/html/param_choice.h"
#include "hpo/report/html/pareto_data.h"
#include "hpo/report/pareto_view.h"
#include "hpo/report/selection.h"
#include "hpo/run/orphans.h"
#include "hpo/storage/optuna_codec.h"
#include "hpo/storage/trial_attrs.h"

namespace hpo {

using nlohmann::json;

namespace {

constexpr size_t kStderrTailChars = 4096;

// JSON has no infinities; the page shows them as missing.
json number_or_null(std::optional<double> v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

// A trial's objective: "value" a number or null, and for a value JSON
// cannot hold (+inf, -inf, nan) "value_text" so the page can say which:
// hpo best counts -inf as the best of a minimize study, so the page must
// show it rather than a blank.
void put_value(json& row, std::optional<double> v) {
  row["value"] = number_or_null(v);
  if (v && !std::isfinite(*v))
    row["value_text"] = std::isnan(*v) ? "nan" : *v > 0 ? "+inf" : "-inf";
}

std::string state_name(const TrialRecord& t) {
  if (t.state == TrialState::kFail && system_attr_text(t, kFailKindAttr) == "oom") return "OOM";
  return to_string(t.state);
}

json param_json(const std::string& name, const Distribution& dist) {
  json p = {{"name", name}};
  if (const auto* f = std::get_if<FloatDistribution>(&dist)) {
    p.update({{"type", "float"}, {"log", f->log}, {"low", f->low}, {"high", f->high}});
  } else if (const auto* i = std::get_if<IntDistribution>(&dist)) {
    p.update({{"type", "int"}, {"log", i->log}, {"low", i->low}, {"high", i->high}});
  } else {
    json choices = json::array();
    for (const auto& c : std::get<CategoricalDistribution>(dist).choices)
      choices.push_back(to_string(c));
    p.update({{"type", "categorical"}, {"log", false}, {"choices", choices}});
  }
  return p;
}

// Every parameter any trial has, in first-seen order, with its first domain.
std::vector<std::pair<std::string, Distribution>> study_params(const StudyView& view) {
  std::vector<std::pair<std::string, Distribution>> params;
  std::set<std::string> seen;
  for (const auto& t : view.trials) {
    for (const auto& p : t.params) {
      if (seen.insert(p.name).second) params.emplace_back(p.name, p.distribution);
    }
  }
  return params;
}

// Seconds since the epoch, negative when unknown (a running trial's end).
double stored_time(const std::string& text) { return text.empty() ? -1 : datetime_seconds(text); }

json time_json(double seconds) { return seconds >= 0 ? json(seconds) : json(nullptr); }

json gpu_util(const TrialRecord& t) {
  const auto gpu = t.system_attrs.find(kGpuUseAttr);
  if (gpu == t.system_attrs.end() || !gpu->second.is_object()) return nullptr;
  const auto util = gpu->second.find("mean_util_pct");
  return util != gpu->second.end() && util->is_number() ? *util : json(nullptr);
}

json trial_row(const TrialRecord& t,
               const std::vector<std::pair<std::string, Distribution>>& params,
               const std::set<std::string>& metrics, bool orphaned) {
  json values = json::array();
  for (const auto& [name, dist] : params) {
    json v = nullptr;
    for (const auto& p : t.params) {
      if (p.name == name) v = p.internal;
    }
    values.push_back(v);
  }
  json m = json::object();
  for (const auto& [k, v] : t.user_attrs) {
    if (metrics.count(k) && v.is_number()) m[k] = v;
  }
  json row = {{"n", t.number},
              {"state", state_name(t)},
              {"p", values},
              {"m", m},
              {"start", time_json(stored_time(t.datetime_start))},
              {"end", time_json(stored_time(t.datetime_complete))},
              {"host", trial_host(t)},
              {"slot", trial_slot(t)},
              {"gpu_util", gpu_util(t)}};
  put_value(row, t.value);
  // Outside its constraints a trial is no candidate for best, though it has
  // a value: the page draws it apart and leaves it out of "best so far".
  if (t.state == TrialState::kComplete && !trial_feasible(t)) row["infeasible"] = true;
  const auto split = time_split(t);
  if (!split.empty()) {
    // [["load", s], ["data", s], ...], in the order time passes (a JSON
    // object would sort them): the timeline's labels.
    json parts = json::array();
    for (const auto& [key, seconds] : split)
      parts.push_back({key.substr(0, key.size() - 2), seconds});
    row["split"] = parts;
  }
  // A RUNNING trial whose hpo process is gone is left from a run that died,
  // not work in progress: the page must not call the study running. The
  // caller marks them (mark_orphans: hpo status's rule, heartbeats
  // included); an owner known dead on this host counts even unmarked.
  if (orphaned || orphanhood(t, {}) == Orphanhood::kOwnerDead) row["orphan"] = true;
  return row;
}

// Pairs of recorded metrics worth plotting against each other: the
// objective against each recorded metric, and each val_X against test_X
// (did the validation choice carry over?).
std::vector<std::pair<std::string, std::string>> metric_pairs(const StudyView& view) {
  std::set<std::string> numeric;
  for (const auto& t : view.trials) {
    for (const auto& [k, v] : t.user_attrs) {
      if (v.is_number()) numeric.insert(k);
    }
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& r : view.record) {
    if (r != view.metric && numeric.count(r)) pairs.emplace_back(view.metric, r);
  }
  for (const auto& name : numeric) {
    if (name.rfind("val_", 0) == 0 && numeric.count("test_" + name.substr(4))) {
      pairs.emplace_back(name, "test_" + name.substr(4));
    }
  }
  return pairs;
}

json curves_json(const StudyView& view, size_t limit) {
  std::vector<const TrialRecord*> with_curve;
  for (const auto& t : view.trials) {
    if (!t.intermediate.empty()) with_curve.push_back(&t);
  }
  json series = json::array();
  for (const TrialRecord* t : downsample(with_curve, view.study.direction, limit)) {
    json steps = json::array(), values = json::array();
    for (const auto& [step, v] : t->intermediate) {
      steps.push_back(step);
      values.push_back(number_or_null(v));
    }
    series.push_back(
        {{"n", t->number}, {"state", state_name(*t)}, {"steps", steps}, {"values", values}});
  }
  return {{"total", with_curve.size()}, {"series", series}};
}

json parallel_json(const StudyView& view, size_t limit) {
  std::vector<const TrialRecord*> complete;
  for (const auto& t : view.trials) {
    if (t.state == TrialState::kComplete && t.value && std::isfinite(*t.value))
      complete.push_back(&t);
  }
  json numbers = json::array();
  for (const TrialRecord* t : downsample(complete, view.study.direction, limit))
    numbers.push_back(t->number);
  return {{"total", complete.size()}, {"trials", numbers}};
}

json failures_json(const StudyView& view, size_t limit) {
  json rows = json::array();
  size_t total = 0;
  for (const auto& t : view.trials) {
    if (t.state != TrialState::kFail) continue;
    if (++total > limit) continue;
    std::string tail = system_attr_text(t, kStderrTailAttr);
    if (tail.size() > kStderrTailChars) tail = tail.substr(tail.size() - kStderrTailChars);
    rows.push_back({{"n", t.number},
                    {"state", state_name(t)},
                    {"reason", system_attr_text(t, kFailReasonAttr)},
                    {"stderr_tail", tail}});
  }
  return {{"total", total}, {"rows", rows}};
}

// The config as `hpo export` writes it, the selection's statistics in its
// header.
// The best trial; with several objectives, the knee of the Pareto front
// (what hpo export writes by default).
const TrialRecord* shown_best(const StudyView& view) {
  if (is_multi_objective(view.study)) return pick_knee(view, pareto_trials(view)).trial;
  const auto best = best_trials(view, 1);
  return best.empty() ? nullptr : best.front();
}

json best_json(const StudyView& view, const std::string& notes, const StudyConfig* study) {
  const TrialRecord* shown = shown_best(view);
  if (!shown) return nullptr;
  const TrialRecord& t = *shown;
  json b = {{"n", t.number}};
  put_value(b, t.value);
  try {
    // As hpo export writes it: a trainer that reads only JSON gets the
    // export that writes its config, not a line that would crash it.
    if (const auto hint = json_export_hint(study, view.study.name, "", t)) {
      b["config"] = config_yaml(view, t, *hint + "\n" + notes);
      b["run"] = "";
    } else {
      const std::string run = trainer_command_line(study, t, "best.yaml");
      b["config"] = config_yaml(view, t, notes, run);
      b["run"] = run;
    }
  } catch (const StorageError&) {
    // A trial hpo did not run (Optuna made it) has no stored config.
    json params = json::object();
    for (const auto& [name, value] : params_as_run(t)) params[name] = param_value_to_json(value);
    b["config"] = nullptr;
    b["params"] = params;
  }
  return b;
}

// The local time zone's offset at `when`: stored times are local.
long utc_offset_seconds(double when) {
  const std::time_t t = static_cast<std::time_t>(when);
  std::tm local = {};
  localtime_r(&t, &local);
  return local.tm_gmtoff;
}

}  // namespace

json report_data(const StudyView& view, double now_s, const ReportLimits& limits,
                 const std::vector<std::string>& requested_params, const StudyConfig* study) {
  const auto params = study_params(view);
  const auto pairs = metric_pairs(view);
  std::set<std::string> metrics;
  json pairs_json = json::array();
  for (const auto& [x, y] : pairs) {
    metrics.insert(x);
    metrics.insert(y);
    pairs_json.push_back({x, y});
  }
  json d;
  d["study"] = view.study.name;
  d["direction"] = view.study.direction == Direction::kMaximize ? "maximize" : "minimize";
  d["metric"] = view.metric;
  d["params"] = json::array();
  for (const auto& [name, dist] : params) d["params"].push_back(param_json(name, dist));
  d["trials"] = json::array();
  for (const auto& t : view.trials)
    d["trials"].push_back(trial_row(t, params, metrics, view.orphaned.count(t.id) > 0));
  d["metric_pairs"] = pairs_json;
  d["curves"] = curves_json(view, limits.curves);
  d["parallel"] = parallel_json(view, limits.parallel);
  d["failures"] = failures_json(view, limits.failures);
  SelectionOptions options;
  if (is_multi_objective(view.study)) {
    options.chosen = shown_best(view);
    options.chosen_by = "knee";
  }
  const Selection selection = compute_selection(view, options);
  const std::string selection_lines = selection_text(view, selection);
  d["best"] = best_json(view, selection_lines, study);
  // Section 10: the selection's statistics and the PBO logits' histogram.
  d["selection"] = selection_json(view, selection);
  d["selection"]["text"] = selection_lines;
  d["importance"] = importance_json(view, limits.importance_trials);
  // Section 11: the Pareto front and its hypervolume; null for one objective.
  d["pareto"] = pareto_json(view, limits.hypervolume_steps);
  std::vector<std::string> names;
  for (const auto& [name, dist] : params) names.push_back(name);
  d["shown_params"] = choose_params(names, d["importance"], requested_params, limits.shown_params);
  d["generated_at"] = now_s;
  d["utc_offset_s"] = utc_offset_seconds(now_s);
  return d;
}

}  // namespace hpo
