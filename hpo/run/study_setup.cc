#include "hpo/run/study_setup.h"

#include <filesystem>
#include <random>

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
  const auto stored = objective_directions(prepared.record);
  if (stored != directions) {
    throw StorageError(storage.url() + ": study '" + config.name + "' was created to " +
                       directions_words(stored) + ", but " + config.path + " says to " +
                       directions_words(directions));
  }
  const Attrs attrs = storage.study_user_attrs(prepared.record.id);
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
  if (!attrs.count(kStudyFileAttr) && !config.path.empty()) {
    storage.set_study_user_attr(prepared.record.id, kStudyFileAttr,
                                std::filesystem::absolute(config.path).string());
  }
  return prepared;
}

}  // namespace hpo
