// What the NSGA-II, GP and TPE option tables share: each is a vector of
// rows with a `key` and a `member`, and each study-file reader looks a key
// up in its table and sets the member it names.
#ifndef HPO_SAMPLERS_OPTION_ROWS_H_
#define HPO_SAMPLERS_OPTION_ROWS_H_

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "samplers/tpe_option_table.h"

namespace hpo {

// The keys of `table`, in its order.
template <class Row>
std::vector<std::string> option_row_keys(const std::vector<Row>& table) {
  std::vector<std::string> keys;
  for (const auto& row : table) keys.push_back(row.key);
  return keys;
}

// The row of `table` named `key`, or nullptr.
template <class Row>
const Row* find_option_row(const std::vector<Row>& table, const std::string& key) {
  const auto it =
      std::find_if(table.begin(), table.end(), [&key](const Row& r) { return key == r.key; });
  return it == table.end() ? nullptr : &*it;
}

// Sets `out` from `values`, in the order of `values`, for a table whose
// options do not depend on one another. `Setter{value, out}` visits a
// row's member and says whether the value was valid. The first bad key is
// returned, with `expected` empty when the key is no option.
template <class Setter, class Row, class Options>
std::optional<TpeOptionError> read_independent_options(
    const std::vector<Row>& table, const std::map<std::string, TpeOptionValue>& values,
    Options& out) {
  for (const auto& [key, value] : values) {
    const Row* row = find_option_row(table, key);
    if (!row) return TpeOptionError{key, ""};
    if (!std::visit(Setter{value, out}, row->member)) return TpeOptionError{key, row->expected};
  }
  return std::nullopt;
}

}  // namespace hpo

#endif  // HPO_SAMPLERS_OPTION_ROWS_H_
