// Study files (studies/*.yaml): which search space to sample, what to
// optimize, how to run a trial. See studies/quick_sweep.yaml for every key.
#ifndef HPO_CONFIG_STUDY_FILE_H_
#define HPO_CONFIG_STUDY_FILE_H_

#include <string>
#include <vector>

#include "hpo/config/study_config.h"

namespace hpo {

// Reads and validates a study file and the search space it names. A
// relative `search_space` is looked up in the study file's directory, then in
// <study dir>/../search_spaces/; `.yaml` may be left out. The study's `fixed`
// values are merged into the space's (overriding same-named ones); fixing a
// parameter the space samples is an error. A missing `name` is the file's
// stem. Throws ConfigError naming file, line and key.
StudyConfig load_study_file(const std::string& path);

// The file behind `hpo run --study NAME_OR_PATH`: an existing file as given,
// else <dir>/<name>.yaml from the first of `search_dirs` that has it. When
// none has, the ConfigError lists the directories searched and the study
// names found there, sorted.
std::string find_study_file(const std::string& name_or_path,
                            const std::vector<std::string>& search_dirs);

// Study names end up in paths and in the database: they must match
// [A-Za-z0-9_.-]+ and must not start with '.'. Throws ConfigError otherwise.
void validate_study_name(const std::string& name);

}  // namespace hpo

#endif  // HPO_CONFIG_STUDY_FILE_H_
