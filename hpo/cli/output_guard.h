// What a command's -o must never replace: the files it read its study from.
// `hpo export -o s.db` once wrote a config over the study's own database
// (exit 0, every trial gone); `-o studies/s.yaml` over the study file.
#ifndef HPO_CLI_OUTPUT_GUARD_H_
#define HPO_CLI_OUTPUT_GUARD_H_

#include <optional>
#include <string>
#include <vector>

#include "hpo/config/study_config.h"

namespace hpo {

struct StudyInput {
  std::string path;
  std::string what;  // "the study's database", "the study file", ...
};

// The study file, its search space, and the SQLite database `storage_url`
// names with its -wal, -shm and -journal files (none for other storage).
std::vector<StudyInput> study_inputs(const std::optional<StudyConfig>& config,
                                     const std::string& storage_url);

// Throws ConfigError naming `flag` when `output` is one of `inputs`: the same
// file where both exist, else the same path once made absolute.
void refuse_overwriting_inputs(const std::string& flag, const std::string& output,
                               const std::vector<StudyInput>& inputs);

}  // namespace hpo

#endif  // HPO_CLI_OUTPUT_GUARD_H_
