#include "hpo/run/trial_config.h"

#include "hpo/storage/optuna_codec.h"

namespace hpo {

nlohmann::ordered_json trial_config(const std::vector<StoredParam>& params,
                                    const FixedValues& fixed) {
  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  for (const auto& p : params)
    config[p.name] = param_value_to_json(to_external(p.distribution, p.internal));
  for (const auto& [name, value] : fixed) {
    if (!config.contains(name)) config[name] = param_value_to_json(value);
  }
  return config;
}

std::string describe_params(const std::vector<StoredParam>& params) {
  std::string text;
  for (const auto& p : params) {
    if (!text.empty()) text += ' ';
    text += p.name + "=" + to_short_string(to_external(p.distribution, p.internal));
  }
  return text;
}

RanParams params_that_ran(const std::vector<StoredParam>& stored,
                          const nlohmann::ordered_json& config) {
  RanParams ran;
  for (const auto& p : stored) {
    const auto it = config.find(p.name);
    if (it == config.end()) continue;
    double internal = 0;
    try {
      internal = to_internal(p.distribution, param_value_from_json(*it));
    } catch (const std::invalid_argument&) {
      ran.outside.push_back(p.name);
      continue;
    }
    if (internal != p.internal) ran.inside.push_back({p.name, p.distribution, internal});
  }
  if (!ran.outside.empty()) ran.inside.clear();
  return ran;
}

}  // namespace hpo
