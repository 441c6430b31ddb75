#include "hpo/launch/proc_stat.h"

#include <fstream>
#include <sstream>
#include <string>

namespace hpo {

std::optional<ProcStat> read_proc_stat(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) is in parentheses and may hold spaces, so
  // count fields from the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 > stat.size()) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  ProcStat s;
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 3) s.state = field[0];
    if (i == 5) s.pgid = std::stoll(field);
    if (i == 22) {
      s.start_ticks = std::stoll(field);
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace hpo
