// The TPE options a study file can set, one row each. The study-file reader
// (hpo/run/sampler_factory.cc), the quality bench and docs/sampler-options.md
// all go through this table, so adding an option is a TpeOptions member, its
// row in tpe_option_table.cc and the code that uses it.
#ifndef HPO_SAMPLERS_TPE_OPTION_TABLE_H_
#define HPO_SAMPLERS_TPE_OPTION_TABLE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "samplers/tpe_options.h"

namespace hpo {

// The member a row sets. std::monostate: the preset, which sets them all.
using TpeOptionMember =
    std::variant<std::monostate, bool TpeOptions::*, int TpeOptions::*, double TpeOptions::*,
                 TpeSplitRule TpeOptions::*, TpeWeighting TpeOptions::*, TpeBandwidth TpeOptions::*,
                 StartupKind TpeOptions::*>;

struct TpeOptionRow {
  const char* key;
  TpeOptionMember member;
  // Numbers: nullptr for a valid `value`, else what was expected. It may
  // depend on the options read so far (gamma's range depends on the split).
  const char* (*check)(double value, const TpeOptions& so_far);
  const char* description;  // one line, for the docs
};

// Every option, in the order a study file's keys are applied: the preset
// first and the mode next, since the other keys adjust their values.
const std::vector<TpeOptionRow>& tpe_option_table();

// A value as a study file writes it: a bool, an integer, a number or a
// string; std::monostate for anything else (a list, a map). `written` is
// how it reads, for errors.
struct TpeOptionValue {
  std::variant<std::monostate, bool, int64_t, double, std::string> value;
  std::string written;
};

struct TpeOptionError {
  std::string key;
  std::string expected;  // empty: `key` is no option
};

// Sets `out` from `values` (key -> value) in the table's order, whatever
// their order in `values`; keys not given keep the preset's value. The
// first bad key is returned, with `out` then half-set.
std::optional<TpeOptionError> read_tpe_options(const std::map<std::string, TpeOptionValue>& values,
                                               TpeOptions& out);

// The keys of the table, in its order.
std::vector<std::string> tpe_option_keys();

// The value of `row` in `options`, as a study file writes it ("true", "0.15",
// "neighbours"); the preset's row gives "".
std::string tpe_option_text(const TpeOptionRow& row, const TpeOptions& options);

// What `row` accepts, given the options read before it ("true or false",
// "one of linear, sqrt", "an integer of at least 1").
std::string tpe_option_expected(const TpeOptionRow& row, const TpeOptions& so_far);

}  // namespace hpo

#endif  // HPO_SAMPLERS_TPE_OPTION_TABLE_H_
