#include "hpo/cli/study_locator.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include "hpo/config/config_error.h"
#include "hpo/config/search_dirs.h"
#include "hpo/config/study_file.h"
#include "hpo/launch/program_path.h"
#include "hpo/storage/file_system_hint.h"
#include "hpo/storage/open_storage.h"

namespace hpo {

namespace fs = std::filesystem;

namespace {
constexpr const char* kDefaultStorage = "sqlite:///hpo.db";
}

std::vector<std::string> study_search_dirs() {
  const auto dirs = search_dirs("HPO_STUDY_PATH", "studies", HPO_SOURCE_DATA_DIR, executable_dir());
  // The same directory reached twice (running from the source tree) is searched once.
  std::vector<std::string> unique;
  std::vector<fs::path> seen;
  for (const auto& d : dirs) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(d, ec);
    bool dup = false;
    for (const auto& s : seen) dup = dup || s == canonical;
    if (!dup) {
      seen.push_back(canonical);
      unique.push_back(d);
    }
  }
  return unique;
}

StudyConfig load_study(const std::string& name_or_path) {
  return load_study_file(find_study_file(name_or_path, study_search_dirs()));
}

std::optional<StudyConfig> try_load_study(const std::string& name_or_path) {
  std::string path;
  try {
    path = find_study_file(name_or_path, study_search_dirs());
  } catch (const ConfigError&) {
    return std::nullopt;
  }
  return load_study_file(path);
}

namespace {

// --storage, else $HPO_STORAGE: a database named without any study file.
std::optional<StorageChoice> storage_named_outside(const std::string& flag) {
  if (!flag.empty()) return StorageChoice{flag, "--storage"};
  if (const char* env = std::getenv("HPO_STORAGE"); env && *env)
    return StorageChoice{env, "$HPO_STORAGE"};
  return std::nullopt;
}

// The study's name from a file that does not parse as a whole: its top-level
// `name:` line, read as a line (a copy of s.yaml may keep `name: s`, and it
// is that study it runs and reads). nullopt without one that is a valid name.
std::optional<std::string> name_line(const std::string& path) {
  std::ifstream in(path);
  const std::regex line(R"(^name:[ \t]*(["']?)([A-Za-z0-9_.-]+)\1[ \t]*(#.*)?\r?$)");
  std::smatch m;
  for (std::string text; std::getline(in, text);) {
    if (!std::regex_match(text, m, line)) continue;
    try {
      validate_study_name(m[2]);
    } catch (const ConfigError&) {
      return std::nullopt;
    }
    return m[2].str();
  }
  return std::nullopt;
}

}  // namespace

StudyToRead find_study_to_read(const std::string& name_or_path, const std::string& storage_flag,
                               const std::string& command) {
  std::string path;
  try {
    path = find_study_file(name_or_path, study_search_dirs());
  } catch (const ConfigError&) {
    return {std::nullopt, name_or_path, ""};  // the study may live only in a database
  }
  try {
    StudyConfig config = load_study_file(path);
    const std::string name = config.name;
    return {std::move(config), name, path};
  } catch (const ConfigError& e) {
    if (!storage_named_outside(storage_flag))
      throw ConfigError(
          std::string(e.what()) +
          "\n(to read the study's trials while the file is broken, name its database: "
          "--storage sqlite:///hpo.db for the default, else the URL in the file's "
          "storage: key)");
    const std::string name = name_line(path).value_or(fs::path(path).stem().string());
    std::cerr << command << ": warning: " << e.what() << "\n"
              << command << ": reading study '" << name
              << "' from the database without its study file\n";
    return {std::nullopt, name, path};
  }
}

// The environment comes before the study file: a study file is shared by
// every host, and each host (a Slurm task, a Kubernetes pod) is pointed at the
// fleet's database through $HPO_STORAGE. The default comes last, for a study
// file that sets no storage (its StudyConfig::storage is empty).
StorageChoice choose_storage(const std::string& flag, const std::optional<StudyConfig>& study) {
  StorageChoice choice{kDefaultStorage, "the default"};
  std::string where = "the default storage";
  if (const auto named = storage_named_outside(flag)) {
    choice = *named;
    where = named->source;
  } else if (study && !study->storage.empty()) {
    choice = {study->storage, "the study file"};
    where = study->path + ": storage";
  }
  // A URL hpo cannot use is bad input (exit 2), named by where it came from.
  try {
    check_storage_url(choice.url);
  } catch (const StorageError& e) {
    throw ConfigError(where + ": " + e.what());
  }
  return choice;
}

std::string storage_url(const std::string& flag, const std::optional<StudyConfig>& study) {
  return choose_storage(flag, study).url;
}

void refuse_sqlite_on_network_fs(const std::string& url) {
  const auto sqlite = sqlite_path(url);
  if (!sqlite) return;
  const std::string& path = *sqlite;
  const std::string fs = network_file_system(path);
  if (fs.empty()) return;
  throw ConfigError(
      url + ": " + path + " is on a network file system (" + fs +
      "), where SQLite's locks and WAL do not work and the study can be corrupted; put the "
      "database on a local disk (sqlite:////local/path/hpo.db) or use PostgreSQL "
      "(postgresql://user:pass@host:5432/db)");
}

}  // namespace hpo
