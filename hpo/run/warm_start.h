// Warm start (`warm_start: {studies: [quick_sweep]}`): the COMPLETE trials
// of earlier studies, read as prior observations for the sampler
// (Sampler::tell_prior; how the models weigh them: samplers/
// prior_observations.h). The earlier studies are only read, never written.
#ifndef HPO_RUN_WARM_START_H_
#define HPO_RUN_WARM_START_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/run/sampling_space.h"
#include "hpo/storage/storage.h"
#include "samplers/trial_view.h"

namespace hpo {

// The study attribute that records what a run carried over, for `hpo status`.
inline constexpr const char* kWarmStartAttr = "hpo:warm_start";

struct WarmStart {
  std::vector<TrialView> prior;  // source k's trials have source == k (1-based)
  std::vector<std::string> notes;  // one line per source, for `hpo run` to print
  nlohmann::json record = nlohmann::json::array();  // per source: study, storage, trials
};

// Reads config.warm_start's studies: `storage` is this study's storage
// (NAME), NAME@URL opens URL read-only. A trial carries over when it is
// COMPLETE with a finite value and holds every unconditional parameter of
// `space` inside its (bounded) domain. A source that does not exist yet
// (its database or its study) is a note: the run starts cold. Throws
// ConfigError, naming the study file and the key, when a source's
// parameters or direction differ from this study's.
WarmStart load_warm_start(const StudyConfig& config, Storage& storage, const SamplingSpace& space);

}  // namespace hpo

#endif  // HPO_RUN_WARM_START_H_
