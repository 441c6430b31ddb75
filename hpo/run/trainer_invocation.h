// How the trainer protocol starts one trainer run (docs/trainer-protocol.md):
// its argv with the placeholders filled in, and the environment hpo gives it.
// One place, so `hpo run` and `hpo gpu calibrate` start trainers alike.
#ifndef HPO_RUN_TRAINER_INVOCATION_H_
#define HPO_RUN_TRAINER_INVOCATION_H_

#include <string>
#include <utility>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/gpu/slot_plan.h"

namespace hpo {

struct TrainerInvocation {
  std::vector<std::string> argv;  // argv[0] is the trainer's resolved path
  // The study's env, then HPO_* (trial, files, objective, cache), then the
  // slot's, which win over the study's.
  std::vector<std::pair<std::string, std::string>> env;
};

// `trial_dir` is absolute; `number` and `id` are the trial's as text.
TrainerInvocation trainer_invocation(const StudyConfig& study, const std::string& program,
                                     const Slot& slot, const std::string& trial_dir,
                                     const std::string& number, const std::string& id);

}  // namespace hpo

#endif  // HPO_RUN_TRAINER_INVOCATION_H_
