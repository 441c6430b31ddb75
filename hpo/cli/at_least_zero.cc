#include "hpo/cli/at_least_zero.h"

#include <cmath>
#include <string>

namespace hpo {

CLI::Validator at_least_zero() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || std::isnan(value)) {
          return "expected a number >= 0, got '" + text + "'";
        }
        return value >= 0 ? std::string() : "must be >= 0, got '" + text + "'";
      },
      "NUMBER >= 0", "AT_LEAST_ZERO");
}

}  // namespace hpo
