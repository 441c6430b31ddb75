#include "hpo/report/config_export.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "hpo/report/status_table.h"
#include "samplers/param_value.h"

namespace hpo {

namespace {

void emit_scalar(YAML::Emitter& out, const nlohmann::json& v) {
  if (v.is_null())
    out << YAML::Null;
  else if (v.is_boolean())
    out << v.get<bool>();
  else if (v.is_number_integer())
    out << v.get<int64_t>();
  // Shortest text that reads back to the same double.
  else if (v.is_number())
    out << to_string(ParamValue(v.get<double>()));
  else if (v.is_string())
    out << YAML::DoubleQuoted << v.get<std::string>();
  else
    out << YAML::Flow << YAML::Load(v.dump());  // lists or maps, if a fixed value was one
}

}  // namespace

nlohmann::json trial_run_config(const TrialRecord& trial) {
  const auto it = trial.system_attrs.find("hpo:config");
  if (it == trial.system_attrs.end() || !it->second.is_object()) {
    throw StorageError("trial " + std::to_string(trial.number) +
                       " has no stored config (was it run by hpo?)");
  }
  return it->second;
}

std::string config_yaml(const StudyView& view, const TrialRecord& trial, const std::string& notes) {
  const nlohmann::json config = trial_run_config(trial);
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& [key, value] : config.items()) {
    out << YAML::Key << key << YAML::Value;
    emit_scalar(out, value);
  }
  out << YAML::EndMap;
  std::string header = "# study " + view.study.name + ", trial " + std::to_string(trial.number) +
                       ": " + view.metric + " = " +
                       (trial.value ? short_number(*trial.value) : "-") +
                       "\n# run it with: hpo-trainer --config THIS_FILE --out DIR\n";
  size_t at = 0;
  while (at < notes.size()) {
    const size_t end = std::min(notes.find('\n', at), notes.size());
    header += "# " + notes.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return header + out.c_str() + "\n";
}

std::string config_json(const TrialRecord& trial) { return trial_run_config(trial).dump(2) + "\n"; }

}  // namespace hpo
