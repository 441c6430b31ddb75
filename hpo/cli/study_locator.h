// Where the CLI finds study files and which database a command uses.
#ifndef HPO_CLI_STUDY_LOCATOR_H_
#define HPO_CLI_STUDY_LOCATOR_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/storage/storage.h"

namespace hpo {

// Directories searched for `<name>.yaml`, in order: each entry of
// $HPO_STUDY_PATH, ./studies, then the studies shipped with hpo (the source
// checkout it was built from, and <prefix>/share/hpo/studies).
std::vector<std::string> study_search_dirs();

// Finds and loads a study by name or path; throws ConfigError.
StudyConfig load_study(const std::string& name_or_path);

// The study file for `name` if there is one, else nullopt (the study may
// live only in a database). Errors in a file that exists still throw.
std::optional<StudyConfig> try_load_study(const std::string& name_or_path);

// What a command that only reads the database (status, best, report) needs:
// the study file, if any, and the study's name there. A study file that exists
// but does not parse (a user mid-edit) still throws, unless the database is
// named without it (--storage or $HPO_STORAGE): then a warning goes to stderr
// and the trials are read under the file's `name:` line (else its stem), so
// an edit in progress does not hide what is stored. `command` names the command in the warning.
struct StudyToRead {
  std::optional<StudyConfig> config;
  std::string name;
  std::string file;  // the study file found, parsed or not; "" when none
};
StudyToRead find_study_to_read(const std::string& name_or_path, const std::string& storage_flag,
                               const std::string& command);

// The storage URL, the first of: --storage, $HPO_STORAGE, the study file's
// `storage`, the default sqlite:///hpo.db in the working directory. Every
// command that opens a study database decides this way.
std::string storage_url(const std::string& flag, const std::optional<StudyConfig>& study);

// The same URL, and where it came from, for errors: "--storage",
// "$HPO_STORAGE", "the study file" or "the default".
struct StorageChoice {
  std::string url;
  std::string source;
};
StorageChoice choose_storage(const std::string& flag, const std::optional<StudyConfig>& study);

// Throws ConfigError when `url` names a SQLite database on a network file
// system (NFS, CIFS, Lustre, ...): SQLite's locks and WAL work only within
// one machine's kernel, so workers there could corrupt the study.
void refuse_sqlite_on_network_fs(const std::string& url);

}  // namespace hpo

#endif  // HPO_CLI_STUDY_LOCATOR_H_
