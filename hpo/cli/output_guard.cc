#include "hpo/cli/output_guard.h"

#include "hpo/config/config_error.h"
#include "hpo/run/same_file.h"
#include "hpo/storage/open_storage.h"

namespace hpo {

std::vector<StudyInput> study_inputs(const std::optional<StudyConfig>& config,
                                     const std::string& storage_url) {
  std::vector<StudyInput> inputs;
  if (const auto db = sqlite_path(storage_url)) {
    inputs.push_back({*db, "the study's database"});
    for (const char* suffix : {"-wal", "-shm", "-journal"})
      inputs.push_back({*db + suffix, "the study database's " + std::string(suffix + 1) + " file"});
  }
  if (config) {
    if (!config->path.empty()) inputs.push_back({config->path, "the study file"});
    if (!config->space.path.empty()) inputs.push_back({config->space.path, "its search space"});
  }
  return inputs;
}

void refuse_overwriting_inputs(const std::string& flag, const std::string& output,
                               const std::vector<StudyInput>& inputs) {
  for (const StudyInput& input : inputs) {
    if (input.path.empty() || !same_file(output, input.path)) continue;
    throw ConfigError(flag + " " + output + ": is " + input.what + " (" + input.path +
                      "), which this command reads; name another file");
  }
}

}  // namespace hpo
