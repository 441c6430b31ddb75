// A flag check for counts and durations that must not be negative. CLI11's
// NonNegativeNumber states its range's top, the largest double, written out
// in full: a 309-digit number where the user needs one fact.
#ifndef HPO_CLI_AT_LEAST_ZERO_H_
#define HPO_CLI_AT_LEAST_ZERO_H_

#include <CLI/CLI.hpp>

namespace hpo {

// Passes a number >= 0; otherwise the error reads "--flag: must be >= 0, got '-3'".
CLI::Validator at_least_zero();

}  // namespace hpo

#endif  // HPO_CLI_AT_LEAST_ZERO_H_
