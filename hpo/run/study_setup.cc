#include "hpo/run/study_setup.h"

#include <filesystem>
#include <random>

namespace hpo {

PreparedStudy prepare_study(Storage& storage, const StudyConfig& config,
                            std::optional<uint64_t> seed_flag) {
  PreparedStudy prepared;
  const auto existing = storage.find_study(config.name);
  prepared.created = !existing;
  prepared.record =
      existing ? *existing : storage.get_or_create_study(config.name, config.objective.direction);
  if (prepared.record.direction != config.objective.direction) {
    throw StorageError(
        storage.url() + ": study '" + config.name + "' was created to " +
        (prepared.record.direction == Direction::kMaximize ? "maximize" : "minimize") + ", but " +
        config.path + " says to " +
        (config.objective.direction == Direction::kMaximize ? "maximize" : "minimize"));
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
    storage.set_study_user_attr(
        prepared.record.id, kObjectiveAttr,
        {{"metric", config.objective.metric}, {"record", config.objective.record}});
  }
  if (!attrs.count(kStudyFileAttr) && !config.path.empty()) {
    storage.set_study_user_attr(prepared.record.id, kStudyFileAttr,
                                std::filesystem::absolute(config.path).string());
  }
  return prepared;
}

}  // namespace hpo
