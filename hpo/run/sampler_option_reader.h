// Reads a study file's sampler options through a sampler's option table
// (TPE's, the GP's, NSGA-II's), with errors that name the file and the key.
// Shared by the one- and the multi-objective sampler factories.
#ifndef HPO_RUN_SAMPLER_OPTION_READER_H_
#define HPO_RUN_SAMPLER_OPTION_READER_H_

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hpo/config/config_error.h"
#include "hpo/config/option_lines.h"
#include "samplers/tpe_option_table.h"

namespace hpo {

// A study file's options as the option tables read them.
std::map<std::string, TpeOptionValue> option_values(const nlohmann::json& options);

// The error for `error`, a bad key of sampler `sampler` (with `known` keys).
ConfigError option_error(const TpeOptionError& error, const std::string& sampler,
                         const std::vector<std::string>& known,
                         std::map<std::string, TpeOptionValue>& values,
                         const std::string& study_file, const OptionLines& lines);

// The options of a sampler with an option table, read by `read`; an error
// names the `sampler` and its `known` keys.
template <typename Options>
Options table_options(
    const nlohmann::json& options, const std::string& sampler,
    std::optional<TpeOptionError> (*read)(const std::map<std::string, TpeOptionValue>&, Options&),
    const std::vector<std::string>& known, const std::string& study_file, const OptionLines& lines,
    Options defaults = {}) {
  auto values = option_values(options);
  Options o = defaults;
  const auto error = read(values, o);
  if (!error) return o;
  throw option_error(*error, sampler, known, values, study_file, lines);
}

}  // namespace hpo

#endif  // HPO_RUN_SAMPLER_OPTION_READER_H_
