#include "hpo/text/ascii.h"

namespace hpo {

std::string ascii_lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string trim_blanks(std::string_view s) {
  constexpr std::string_view kBlanks = " \t\r\n\v\f";
  const size_t begin = s.find_first_not_of(kBlanks);
  if (begin == std::string_view::npos) return "";
  return std::string(s.substr(begin, s.find_last_not_of(kBlanks) - begin + 1));
}

}  // namespace hpo
