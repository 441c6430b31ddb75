#include "hpo/run/trial_config.h"

namespace hpo {

nlohmann::json param_json(const ParamValue& value) {
  struct Visitor {
    nlohmann::json operator()(std::monostate) const { return nullptr; }
    nlohmann::json operator()(bool b) const { return b; }
    nlohmann::json operator()(int64_t i) const { return i; }
    nlohmann::json operator()(double d) const { return d; }
    nlohmann::json operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, value);
}

nlohmann::ordered_json trial_config(const std::vector<StoredParam>& params, const FixedValues& fixed) {
  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  for (const auto& p : params) config[p.name] = param_json(to_external(p.distribution, p.internal));
  for (const auto& [name, value] : fixed) {
    if (!config.contains(name)) config[name] = param_json(value);
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

}  // namespace hpo
