// A flag check for counts, seeds and durations with a floor. CLI11's
// PositiveNumber and NonNegativeNumber state their range's top, the largest
// double, written out in full: a 309-digit number where the user needs one fact.
#ifndef HPO_CLI_AT_LEAST_H_
#define HPO_CLI_AT_LEAST_H_

#include <CLI/CLI.hpp>

namespace hpo {

// Passes a whole number from `minimum` to INT_MAX, for an int flag;
// otherwise the error reads "--flag: must be >= 1, got '0'", or "--flag:
// expected a whole number >= 1, got '1.5'" (CLI11 alone says "Could not
// convert", and nothing of what it expected).
CLI::Validator at_least(int minimum);

// --max-failures: a whole count >= 1, or a fraction of finished trials in
// [0, 1), 0 meaning no limit.
CLI::Validator failure_limit_value();

// The same with a ceiling too, written as `maximum_text` ("1e8"): "--flag:
// must be from 0 to 1e8, got '1e10'".
CLI::Validator within(int minimum, double maximum, const std::string& maximum_text);

// An integer from 0 to INT64_MAX, as a study file's seed: one past it is
// refused, not clamped.
CLI::Validator seed_value();

}  // namespace hpo

#endif  // HPO_CLI_AT_LEAST_H_
