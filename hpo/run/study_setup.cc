#include "hpo/run/study_setup.h"

#include <filesystem>
#include <random>

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"
#include "hpo/run/same_file.h"

namespace hpo {

namespace {

// "maximize", or "maximize, minimize" for several objectives.
std::string directions_words(const std::vector<Direction>& directions) {
  std::string words;
  for (Direction d : directions)
    words += (words.empty() ? "" : ", ") +
             std::string(d == Direction::kMaximize ? "maximize" : "minimize");
  return words;
}

// What the study records of its goals, for status and the report: the
// objective metrics in order, and the constraints as the study file gave them.
nlohmann::json objective_attr(const StudyConfig& config) {
  nlohmann::json attr = {{"metric", config.objective.metric}, {"record", config.objective.record}};
  if (config.objectives.size() > 1) {
    attr["metrics"] = nlohmann::json::array();
    for (const auto& o : config.objectives) attr["metrics"].push_back(o.metric);
  }
  if (!config.constraints.empty()) {
    attr["constraints"] = nlohmann::json::array();
    for (const auto& c : config.constraints) {
      nlohmann::json item = {{"metric", c.metric}};
      if (c.min) item["min"] = *c.min;
      if (c.max) item["max"] = *c.max;
      attr["constraints"].push_back(item);
    }
  }
  return attr;
}

// The objective metrics in order: the study file's, or as objective_attr stored them.
std::vector<std::string> objective_metrics(const StudyConfig& config) {
  if (config.objectives.size() <= 1) return {config.objective.metric};
  std::vector<std::string> metrics;
  for (const auto& o : config.objectives) metrics.push_back(o.metric);
  return metrics;
}

std::vector<std::string> stored_metrics(const nlohmann::json& attr) {
  if (attr.contains("metrics") && attr["metrics"].is_array())
    return attr["metrics"].get<std::vector<std::string>>();
  if (attr.contains("metric") && attr["metric"].is_string())
    return {attr["metric"].get<std::string>()};
  return {};
}

// A study holds one objective: trials that measured another metric would be
// ranked against it, and `hpo best` and `hpo export` would pick among values
// that do not compare. A copied study file that kept the original's `name:`
// does exactly that, so the refusal says how to start a study of its own.
void check_same_objective(const Storage& storage, const StudyConfig& config,
                          const std::vector<Direction>& stored_directions,
                          const std::vector<Direction>& directions, const Attrs& attrs) {
  const std::string conflict = config.path + ": study '" + config.name + "' in " + storage.url();
  const std::string remedy =
      "; a study keeps its objective: give this file another `name:` for a new study";
  if (stored_directions != directions) {
    throw ConfigError(conflict + " was created to " + directions_words(stored_directions) +
                      ", but this file says to " + directions_words(directions) + remedy);
  }
  const auto attr = attrs.find(kObjectiveAttr);
  if (attr == attrs.end()) return;  // a study from before hpo recorded it, or Optuna's own
  const auto stored = stored_metrics(attr->second);
  const auto metrics = objective_metrics(config);
  if (!stored.empty() && stored != metrics) {
    throw ConfigError(conflict + " optimizes " + join_names(stored) +
                      ", but this file's objective is " + join_names(metrics) + remedy);
  }
}

}  // namespace

PreparedStudy prepare_study(Storage& storage, const StudyConfig& config,
                            std::optional<uint64_t> seed_flag) {
  PreparedStudy prepared;
  const auto existing = storage.find_study(config.name);
  prepared.created = !existing;
  std::vector<Direction> directions;
  for (const auto& o : config.objectives) directions.push_back(o.direction);
  if (directions.empty()) directions = {config.objective.direction};
  prepared.record = existing ? *existing : storage.get_or_create_study(config.name, directions);
  const Attrs attrs = storage.study_user_attrs(prepared.record.id);
  if (existing)
    check_same_objective(storage, config, objective_directions(*existing), directions, attrs);
  const auto stored_seed = attrs.find(kSeedAttr);
  if (seed_flag) {
    prepared.seed = *seed_flag;
  } else if (config.sampler.seeded) {
    prepared.seed = config.sampler.seed;
  } else if (stored_seed != attrs.end() && stored_seed->second.is_number_unsigned()) {
    prepared.seed = stored_seed->second.get<uint64_t>();
  } else {
    prepared.seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  }
  if (stored_seed == attrs.end())
    storage.set_study_user_attr(prepared.record.id, kSeedAttr, prepared.seed);
  if (!attrs.count(kObjectiveAttr)) {
    storage.set_study_user_attr(prepared.record.id, kObjectiveAttr, objective_attr(config));
  }
  const auto file = attrs.find(kStudyFileAttr);
  if (file != attrs.end() && file->second.is_string() && !config.path.empty() &&
      !same_file(file->second.get<std::string>(), config.path)) {
    prepared.notes.push_back("study '" + config.name + "' was created from " +
                             file->second.get<std::string>() + "; this run reads " + config.path +
                             " (a copied study file keeps the original's `name:` and adds to its "
                             "study: rename it for a study of its own)");
  }
  if (file == attrs.end() && !config.path.empty()) {
    storage.set_study_user_attr(prepared.record.id, kStudyFileAttr,
                                std::filesystem::absolute(config.path).string());
  }
  return prepared;
}

}  // namespace hpo
