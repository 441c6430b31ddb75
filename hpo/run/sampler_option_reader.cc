#include "hpo/run/sampler_option_reader.h"

#include "hpo/config/did_you_mean.h"

namespace hpo {

namespace {

// A study file's value as the option table reads it.
TpeOptionValue option_value(const nlohmann::json& v) {
  TpeOptionValue out;
  if (v.is_boolean())
    out.value = v.get<bool>();
  else if (v.is_number_integer())
    out.value = v.get<int64_t>();
  else if (v.is_number())
    out.value = v.get<double>();
  else if (v.is_string())
    out.value = v.get<std::string>();
  out.written = v.dump();
  return out;
}

}  // namespace

std::map<std::string, TpeOptionValue> option_values(const nlohmann::json& options) {
  std::map<std::string, TpeOptionValue> values;
  for (const auto& item : options.items()) values[item.key()] = option_value(item.value());
  return values;
}

// The error for `error`, a bad key of sampler `sampler` (with `known` keys).
ConfigError option_error(const TpeOptionError& error, const std::string& sampler,
                         const std::vector<std::string>& known,
                         std::map<std::string, TpeOptionValue>& values,
                         const std::string& study_file, const OptionLines& lines) {
  const std::string where = lines.where(study_file, error.key);
  if (error.expected.empty()) {
    return ConfigError(where + ": sampler: unknown " + sampler + " option '" + error.key + "'" +
                       did_you_mean(error.key, known) + " (known: name, seed, " +
                       join_names(known) + ")");
  }
  return ConfigError(where + ": sampler." + error.key + ": expected " + error.expected + ", got " +
                     values[error.key].written);
}

}  // namespace hpo
