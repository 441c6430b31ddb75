// Opening a study for a run: created on first use with the metadata that
// `hpo status` and resumed runs need, and the sampler seed settled once.
#ifndef HPO_RUN_STUDY_SETUP_H_
#define HPO_RUN_STUDY_SETUP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/storage/storage.h"

namespace hpo {

struct PreparedStudy {
  StudyRecord record;
  uint64_t seed = 0;
  bool created = false;
  std::vector<std::string> notes;  // for the run's start-up lines, each a "note: "
};

// Study attributes hpo keeps (as Optuna study user attributes).
inline constexpr const char* kObjectiveAttr = "hpo:objective";  // {"metric", "record"}
inline constexpr const char* kSeedAttr = "hpo:sampler_seed";
inline constexpr const char* kStudyFileAttr = "hpo:study_file";
// {"name", "uses", "why", "startup_trials"}: what the last run sampled with.
inline constexpr const char* kSamplerAttr = "hpo:sampler";

// Refuses (ConfigError) a study file whose objective (its metrics or
// directions) differs from the existing study's.
// The seed, in order of precedence: --seed, the study file's sampler.seed,
// the seed stored when the study was created (so a resumed study keeps its
// stream), or a fresh random one, stored for next time.
PreparedStudy prepare_study(Storage& storage, const StudyConfig& config,
                            std::optional<uint64_t> seed_flag);

}  // namespace hpo

#endif  // HPO_RUN_STUDY_SETUP_H_
