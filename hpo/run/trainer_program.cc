#include "hpo/run/trainer_program.h"

#include "hpo/launch/program_path.h"

namespace hpo {

TrainerProgram find_trainer(const StudyConfig& study) {
  const std::string& program = study.trainer.command.front();
  TrainerProgram found;
  found.path = resolve_program(program);
  if (found.path.empty()) {
    found.problem =
        "program '" + program + "' was not found " +
        (program.find('/') == std::string::npos ? "beside hpo (" + executable_dir() + ") or in PATH"
                                                : "or is not executable");
  }
  return found;
}

}  // namespace hpo
