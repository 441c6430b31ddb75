#include "hpo/run/trainer_invocation.h"

#include <filesystem>
#include <map>

#include "hpo/config/placeholders.h"
#include "hpo/run/trial_files.h"

namespace hpo {

namespace fs = std::filesystem;

TrainerInvocation trainer_invocation(const StudyConfig& study, const std::string& program,
                                     const Slot& slot, const std::string& trial_dir,
                                     const std::string& number, const std::string& id) {
  const std::string config_path = (fs::path(trial_dir) / kConfigFile).string();
  const std::map<std::string, std::string> vars = {
      {"config", config_path},
      {"trial_dir", trial_dir},
      {"trial_number", number},
      {"study_name", study.name},
      {"study_dir", fs::absolute(study.path).parent_path().string()},
  };
  TrainerInvocation run;
  run.argv = expand_command(study.trainer.command, vars);
  run.argv[0] = program;
  run.env = study.env;
  run.env.insert(run.env.end(),
                 {
                     {"HPO_STUDY_NAME", study.name},
                     {"HPO_TRIAL_NUMBER", number},
                     {"HPO_TRIAL_ID", id},
                     {"HPO_TRIAL_DIR", trial_dir},
                     {"HPO_CONFIG", config_path},
                     {"HPO_REPORT_FILE", (fs::path(trial_dir) / kReportFile).string()},
                     {"HPO_OBJECTIVE", study.objective.metric},
                     // Shared by every trial (the trainer keys what it keeps):
                     // hpo-trainer builds its features once per data file there.
                     {"HPO_CACHE_DIR", fs::absolute(fs::path(study.runs_dir) / ".cache").string()},
                 });
  run.env.insert(run.env.end(), slot.env.begin(), slot.env.end());
  return run;
}

}  // namespace hpo
