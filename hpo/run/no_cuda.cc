#include "hpo/run/no_cuda.h"

#include <sstream>

namespace hpo {

std::string find_marked_line(const std::string& log, const char* marker) {
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find(marker);
    if (at == std::string::npos) continue;
    std::string text = line.substr(at);
    const auto last = text.find_last_not_of(" \t\r");
    text.resize(last + 1);  // the marker itself is not blank
    if (text.size() > 300) text = text.substr(0, 300) + "...";
    return text;
  }
  return "";
}

bool is_no_cuda(const std::string& reason) { return reason.rfind(kNoCudaMarker, 0) == 0; }

bool is_bad_env(const std::string& reason) { return reason.rfind(kBadEnvMarker, 0) == 0; }

}  // namespace hpo
