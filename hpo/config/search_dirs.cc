#include "hpo/config/search_dirs.h"

#include <cstdlib>
#include <sstream>

namespace hpo {

std::vector<std::string> search_dirs(const char* env_var, const std::string& subdir,
                                     const std::string& source_dir, const std::string& exe_dir) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv(env_var)) {
    std::istringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');) {
      if (!dir.empty()) dirs.push_back(dir);
    }
  }
  dirs.push_back(subdir);
  dirs.push_back(source_dir + "/" + subdir);
  dirs.push_back(exe_dir + "/../share/hpo/" + subdir);
  return dirs;
}

}  // namespace hpo
