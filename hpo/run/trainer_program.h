// Finds the program of a study's trainer command as `hpo run` will start it,
// for `hpo run` (which refuses to start without it) and `hpo doctor` (which
// warns), so that the two agree on where they look.
#ifndef HPO_RUN_TRAINER_PROGRAM_H_
#define HPO_RUN_TRAINER_PROGRAM_H_

#include <string>

#include "hpo/config/study_config.h"

namespace hpo {

struct TrainerProgram {
  std::string path;  // empty when not found
  std::string problem;  // when not found: "program 'x' was not found beside hpo (DIR) or in PATH"
};

// A bare name is looked up beside hpo, then in PATH; a path must be executable.
TrainerProgram find_trainer(const StudyConfig& study);

}  // namespace hpo

#endif  // HPO_RUN_TRAINER_PROGRAM_H_
