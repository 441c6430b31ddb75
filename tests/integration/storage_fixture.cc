// The C++ half of optuna_compat.py: writes, extends and reads studies
// through SqliteStorage, and prints what hpo sees as JSON so that the script
// can compare it with what Optuna sees in the same file.
//
//   hpo_storage_fixture write  DB STUDY     a new study with trials in every state
//   hpo_storage_fixture append DB STUDY N   N more trials in the study's own search space
//   hpo_storage_fixture read   DB STUDY     only print
//
// Each mode prints the study afterwards, as read back from the database.
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "hpo/storage/optuna_codec.h"
#include "hpo/storage/sqlite_storage.h"
#include "samplers/random_sampler.h"

namespace hpo {
namespace {

using nlohmann::ordered_json;

SearchSpace mission_space() {
  return {
      {"lr", FloatDistribution{5e-6, 5e-3, true, std::nullopt}},
      {"dropout", FloatDistribution{0.0, 0.5, false, 0.1}},
      {"layers", IntDistribution{2, 11, false, 3}},
      {"width", IntDistribution{8, 512, true, 1}},
      {"batch_size", CategoricalDistribution{{int64_t{64}, int64_t{128}, int64_t{256}}}},
      {"activation", CategoricalDistribution{{std::string("relu"), std::string("gelu"), true,
                                              std::monostate{}, 0.5}}},
  };
}

// A made-up objective with a clear optimum, so that trials differ.
double objective(const std::vector<StoredParam>& params) {
  double f = 1.0;
  for (const auto& p : params) {
    if (p.name == "lr") f -= std::pow(std::log10(p.internal) + 3.5, 2);
    if (p.name == "dropout") f -= std::pow(p.internal - 0.2, 2);
    if (p.name == "layers") f += 0.01 * p.internal;
    if (p.name == "width") f += 0.001 * std::log2(p.internal);
  }
  return f;
}

std::vector<StoredParam> sample(Sampler& sampler, const SearchSpace& space, int number) {
  const ParamValues values = sampler.ask(space, number);
  std::vector<StoredParam> params;
  for (const auto& spec : space) {
    params.push_back({spec.name, spec.distribution, values.at(spec.name)});
  }
  return params;
}

// What to do with trial i of the written study: most complete, one fails
// after an infinite loss, one is pruned after a NaN, the last keeps running.
void play_trial(Storage& storage, const TrialRecord& trial, int i, int last) {
  const double f = objective(trial.params);
  if (i == 3) {
    storage.set_intermediate_value(trial.id, 0, f / 2);
    storage.set_intermediate_value(trial.id, 1, INFINITY);
    storage.finish_trial(
        trial.id,
        {TrialState::kFail, std::nullopt, {{"error", "loss diverged"}}, {{"hpo:exit_code", 1}}});
    return;
  }
  if (i == 4) {
    storage.set_intermediate_value(trial.id, 0, f / 4);
    storage.set_intermediate_value(trial.id, 1, NAN);
    storage.finish_trial(trial.id, {TrialState::kPruned, std::nullopt, {}, {}});
    return;
  }
  for (int step = 0; step < 4; ++step) {
    storage.set_intermediate_value(trial.id, step, f * (step + 1) / 4);
  }
  if (i == last) return;  // still RUNNING
  storage.finish_trial(trial.id, {TrialState::kComplete,
                                  f,
                                  {{"sharpe", 1.7 * f}, {"max_drawdown", 0.05 * i}, {"ok", true}},
                                  {{"hpo:host", "fixture"}}});
}

void write_study(Storage& storage, const std::string& name) {
  const auto study = storage.get_or_create_study(name, Direction::kMaximize);
  storage.set_study_user_attr(study.id, "description", "written by hpo_storage_fixture");
  storage.set_study_user_attr(study.id, "config", {{"seed", 42}, {"metric", "sharpe"}});
  RandomSampler sampler(42, study.direction);
  const SearchSpace space = mission_space();
  const int count = 8;
  for (int i = 0; i < count; ++i) {
    NewTrial t;
    t.params = sample(sampler, space, i);
    t.user_attrs = {{"worker", "fixture-" + std::to_string(i % 2)}};
    t.system_attrs = {{"hpo:pid", 4242}};
    play_trial(storage, storage.create_trial(study.id, t), i, count - 1);
  }
}

// The search space of a study someone else wrote: the distributions of its
// trial with the most params, in their stored order.
SearchSpace space_of(const std::vector<TrialRecord>& trials) {
  const TrialRecord* widest = nullptr;
  for (const auto& t : trials) {
    if (!widest || t.params.size() > widest->params.size()) widest = &t;
  }
  SearchSpace space;
  if (widest) {
    for (const auto& p : widest->params) space.push_back({p.name, p.distribution});
  }
  return space;
}

void append_trials(Storage& storage, const StudyRecord& study, int n) {
  const auto existing = storage.trials(study.id);
  const SearchSpace space = space_of(existing);
  RandomSampler sampler(7, study.direction);
  for (int i = 0; i < n; ++i) {
    NewTrial t;
    t.params = sample(sampler, space, static_cast<int>(existing.size()) + i);
    t.user_attrs = {{"appended_by", "hpo"}};
    const auto trial = storage.create_trial(study.id, t);
    const double f = static_cast<double>(trial.number) + 0.5;
    storage.set_intermediate_value(trial.id, 0, f / 2);
    storage.set_intermediate_value(trial.id, 1, f);
    storage.finish_trial(trial.id, {TrialState::kComplete, f, {{"sharpe", f / 3}}, {}});
  }
}

ordered_json describe(const Distribution& dist) {
  if (const auto* f = std::get_if<FloatDistribution>(&dist)) {
    return {{"kind", "float"},
            {"low", f->low},
            {"high", f->high},
            {"log", f->log},
            {"step", f->step ? ordered_json(*f->step) : ordered_json(nullptr)}};
  }
  if (const auto* i = std::get_if<IntDistribution>(&dist)) {
    return {
        {"kind", "int"}, {"low", i->low}, {"high", i->high}, {"log", i->log}, {"step", i->step}};
  }
  ordered_json choices = ordered_json::array();
  for (const auto& c : std::get<CategoricalDistribution>(dist).choices) {
    choices.push_back(ordered_json(param_value_to_json(c)));
  }
  return {{"kind", "categorical"}, {"choices", choices}};
}

ordered_json describe(const TrialRecord& t) {
  ordered_json params = ordered_json::object(), dists = ordered_json::object();
  for (const auto& p : t.params) {
    params[p.name] = ordered_json(param_value_to_json(to_external(p.distribution, p.internal)));
    dists[p.name] = describe(p.distribution);
  }
  ordered_json intermediate = ordered_json::object();
  for (const auto& [step, value] : t.intermediate) intermediate[std::to_string(step)] = value;
  return {{"number", t.number},
          {"state", to_string(t.state)},
          {"value", t.value ? ordered_json(*t.value) : ordered_json(nullptr)},
          {"params", params},
          {"distributions", dists},
          {"intermediate", intermediate},
          {"user_attrs", ordered_json(nlohmann::json(t.user_attrs))},
          {"system_attrs", ordered_json(nlohmann::json(t.system_attrs))},
          {"datetime_start", t.datetime_start},
          {"datetime_complete", t.datetime_complete}};
}

// The study as hpo sees it; best_trial is the first COMPLETE trial holding
// the best value list_studies reports.
ordered_json describe(Storage& storage, const StudyRecord& study) {
  ordered_json out = {{"name", study.name}, {"direction", to_string(study.direction)}};
  std::optional<double> best;
  for (const auto& s : storage.list_studies()) {
    if (s.study.id != study.id) continue;
    best = s.best_value;
    ordered_json counts = ordered_json::object();
    for (const auto& [state, n] : s.counts) counts[to_string(state)] = n;
    out["counts"] = counts;
  }
  out["best_value"] = best ? ordered_json(*best) : ordered_json(nullptr);
  out["best_trial"] = nullptr;
  out["user_attrs"] = ordered_json(nlohmann::json(storage.study_user_attrs(study.id)));
  ordered_json trials = ordered_json::array();
  for (const auto& t : storage.trials(study.id)) {
    if (out["best_trial"].is_null() && t.state == TrialState::kComplete && t.value == best) {
      out["best_trial"] = t.number;
    }
    trials.push_back(describe(t));
  }
  out["trials"] = trials;
  return out;
}

int run(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 4 || (mode != "write" && mode != "read" && mode != "append") ||
      (mode == "append") != (argc == 5)) {
    std::cerr << "usage: hpo_storage_fixture write|read DB STUDY | append DB STUDY N\n";
    return 2;
  }
  SqliteStorage storage(argv[2]);
  const std::string name = argv[3];
  if (mode == "write") write_study(storage, name);
  const auto study = storage.find_study(name);
  if (!study) {
    std::cerr << storage.url() << ": no study '" << name << "'\n";
    return 1;
  }
  if (mode == "append") append_trials(storage, *study, std::stoi(argv[4]));
  // Python's json.loads reads the Infinity and NaN this may hold.
  std::cout << to_python_json(describe(storage, *study)) << "\n";
  return 0;
}

}  // namespace
}  // namespace hpo

int main(int argc, char** argv) {
  try {
    return hpo::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "hpo_storage_fixture: " << e.what() << "\n";
    return 1;
  }
}
