#include "hpo/cli/at_least_zero.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace hpo {

CLI::Validator at_least_zero() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || std::isnan(value)) {
          return "expected a number >= 0, got '" + text + "'";
        }
        return value >= 0 ? std::string() : "must be >= 0, got '" + text + "'";
      },
      "NUMBER >= 0", "AT_LEAST_ZERO");
}

}  // namespace hpo
