#include "hpo/run/oom_kills.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace hpo {

std::optional<uint64_t> parse_oom_kills(const std::string& vmstat) {
  std::istringstream in(vmstat);
  std::string name;
  uint64_t count = 0;
  while (in >> name) {
    if (name != "oom_kill") {
      in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
      continue;
    }
    if (in >> count) return count;
    return std::nullopt;
  }
  return std::nullopt;
}

bool is_user_space_oom_killer(const std::string& comm) {
  static const char* const kNames[] = {"systemd-oomd", "earlyoom", "oomd", "nohang"};
  for (const char* name : kNames)
    if (comm == name) return true;
  return false;
}

bool user_space_oom_killer_running() {
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::ifstream in(it->path() / "comm");
    std::string comm;
    if (in && std::getline(in, comm) && is_user_space_oom_killer(comm)) return true;
  }
  return false;
}

std::optional<uint64_t> oom_kill_count() {
  std::ifstream in("/proc/vmstat");
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return parse_oom_kills(text.str());
}

}  // namespace hpo
