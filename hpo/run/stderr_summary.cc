#include "hpo/run/stderr_summary.h"

#include <algorithm>
#include <cctype>

#include "hpo/text/ascii.h"

namespace hpo {

namespace {

bool has_letter(const std::string& line) {
  return std::any_of(line.begin(), line.end(),
                     [](unsigned char c) { return c < 0x80 && std::isalpha(c); });
}

// At most `max` bytes, cut before a whole character: the tail is UTF-8, and
// what is stored or printed must stay so.
std::string shortened(const std::string& line, size_t max) {
  if (line.size() <= max) return line;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + "...";
}

}  // namespace

std::string last_meaningful_line(const std::string& stderr_tail) {
  size_t end = stderr_tail.size();
  while (end > 0) {
    const size_t start = stderr_tail.find_last_of("\r\n", end - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    const std::string line = trim_blanks(std::string_view(stderr_tail).substr(from, end - from));
    if (has_letter(line)) return shortened(line, 200);
    if (start == std::string::npos) break;
    end = start;
  }
  return "";
}

std::string with_last_line(const std::string& reason, const std::string& stderr_tail) {
  const std::string said = last_meaningful_line(stderr_tail);
  if (reason.empty() || said.empty() || reason.find(said) != std::string::npos) return reason;
  return reason + ": " + said;
}

}  // namespace hpo
