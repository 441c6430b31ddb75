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
        errno = 0;
        char* end = nullptr;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0') {
          return "expected a whole number " + floor + ", got '" + text + "'";
        }
        if (errno != ERANGE && value < minimum) return "must be " + floor + ", got '" + text + "'";
        if (errno == ERANGE || value > std::numeric_limits<int>::max())
          return "must be from " + std::to_string(minimum) + " to " +
                 std::to_string(std::numeric_limits<int>::max()) + ", got '" + text + "'";
        return std::string();
      },
      "INTEGER " + floor, "AT_LEAST_" + std::to_string(minimum));
}

CLI::Validator failure_limit_value() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && *end == '\0' && std::isfinite(value);
        if (number && value >= 0 && value < 1) return std::string();
        if (number && value >= 1 && value == std::floor(value) &&
            value <= std::numeric_limits<int>::max())
          return std::string();
        return "expected a whole count of failures (>= 1), or a fraction of finished trials "
               "below 1 (0: no limit), got '" +
               text + "'";
      },
      "N (>= 1) or FRACTION (< 1)", "FAILURE_LIMIT");
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
