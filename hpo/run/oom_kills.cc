#include "hpo/run/oom_kills.h"

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

std::optional<uint64_t> oom_kill_count() {
  std::ifstream in("/proc/vmstat");
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return parse_oom_kills(text.str());
}

}  // namespace hpo
