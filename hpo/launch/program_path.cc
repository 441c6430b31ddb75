#include "hpo/launch/program_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace hpo {

namespace {

bool is_executable_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string executable_dir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string resolve_program(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : "";
  const std::string beside = executable_dir() + "/" + name;
  if (is_executable_file(beside)) return beside;
  const char* path_env = std::getenv("PATH");
  std::istringstream dirs(path_env ? path_env : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (is_executable_file(candidate)) return candidate;
  }
  return "";
}

}  // namespace hpo
