#include "hpo/cli/at_least.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

namespace hpo {

CLI::Validator at_least(int minimum) {
  const std::string floor = ">= " + std::to_string(minimum);
  return CLI::Validator(
      [minimum, floor](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || std::isnan(value)) {
          return "expected a number " + floor + ", got '" + text + "'";
        }
        return value >= minimum ? std::string() : "must be " + floor + ", got '" + text + "'";
      },
      "NUMBER " + floor, "AT_LEAST_" + std::to_string(minimum));
}

CLI::Validator within(int minimum, double maximum, const std::string& maximum_text) {
  const std::string range = "from " + std::to_string(minimum) + " to " + maximum_text;
  return CLI::Validator(
      [minimum, maximum, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || std::isnan(value)) {
          return "expected a number " + range + ", got '" + text + "'";
        }
        return value >= minimum && value <= maximum ? std::string()
                                                    : "must be " + range + ", got '" + text + "'";
      },
      "NUMBER " + range, "WITHIN_" + std::to_string(minimum) + "_" + maximum_text);
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno == ERANGE || value < 0)
          return "expected an integer from 0 to " +
                 std::to_string(std::numeric_limits<int64_t>::max()) + ", got '" + text + "'";
        return std::string();
      },
      "INTEGER >= 0", "SEED");
}

}  // namespace hpo
