#include "hpo/slurm/shell_quote.h"

namespace hpo {

std::string shell_quote(const std::string& s) {
  const bool bare = !s.empty() && s.find_first_not_of(
                                      "abcdefghijklmnopqrstuvwxyz"
                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789_-./:@%+,=") == std::string::npos;
  if (bare) return s;
  std::string quoted = "'";
  for (char c : s) {
    if (c == '\'')
      quoted += "'\\''";
    else
      quoted += c;
  }
  return quoted + "'";
}

}  // namespace hpo
