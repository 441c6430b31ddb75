// Builds the sampler a study asks for (one of sampler_names()), reading its
// options through samplers/tpe_option_table.h.
#ifndef HPO_RUN_SAMPLER_FACTORY_H_
#define HPO_RUN_SAMPLER_FACTORY_H_

#include <memory>
#include <string>

#include "hpo/config/study_config.h"
#include "samplers/sampler.h"

namespace hpo {

// What a run knows that a sampler's defaults depend on.
struct SamplerContext {
  // The trials the study plans: its trials so far plus this run's n_trials;
  // 0: unknown. Sets the startup count where the study file sets none.
  int planned_trials = 0;
  SearchSpace space;  // what the sampler samples: auto's plan, the startup count
  bool constrained = false;  // the study has constraints: auto's plan
};

// Throws ConfigError for an unknown name or option, naming the study file.
std::unique_ptr<Sampler> make_sampler(const SamplerConfig& config, uint64_t seed,
                                      Direction direction, const std::string& study_file,
                                      const SamplerContext& context = {});

// The sampler a run uses and why, for `hpo run`'s line and the study's
// hpo:sampler attribute: {"name", "uses", "why"}.
nlohmann::json sampler_choice(const SamplerConfig& config, const SamplerContext& context);

}  // namespace hpo

#endif  // HPO_RUN_SAMPLER_FACTORY_H_
