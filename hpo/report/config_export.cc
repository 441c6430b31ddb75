#include "hpo/report/config_export.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "hpo/config/placeholders.h"
#include "hpo/report/status_table.h"
#include "hpo/run/trainer_program.h"
#include "hpo/run/trial_files.h"
#include "hpo/slurm/shell_quote.h"
#include "hpo/storage/open_storage.h"
#include "hpo/storage/trial_attrs.h"
#include "hpo/storage/url_mask.h"
#include "hpo/text/ascii.h"
#include "samplers/param_value.h"

namespace hpo {

namespace {

// The shortest text that reads back to `v`, spelled as YAML 1.1's float
// (what PyYAML's safe_load reads): with a dot, and a signed exponent. As
// "5e-06" or "1", a Python trainer's learning rate was a string, or an int.
std::string yaml_float(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  std::string text = to_string(ParamValue(v));
  const size_t e = text.find_first_of("eE");
  std::string mantissa = text.substr(0, e),
              exponent = e == std::string::npos ? "" : text.substr(e + 1);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  if (!exponent.empty() && exponent[0] != '-' && exponent[0] != '+') exponent = "+" + exponent;
  return exponent.empty() ? mantissa : mantissa + "e" + exponent;
}

void emit_scalar(YAML::Emitter& out, const nlohmann::json& v) {
  if (v.is_null())
    out << YAML::Null;
  else if (v.is_boolean())
    out << v.get<bool>();
  else if (v.is_number_integer())
    out << v.get<int64_t>();
  else if (v.is_number())
    out << yaml_float(v.get<double>());
  else if (v.is_string())
    out << YAML::DoubleQuoted << v.get<std::string>();
  else
    out << YAML::Flow << YAML::Load(v.dump());  // lists or maps, if a fixed value was one
}

// Whether `key` reads back as the same string written bare: YAML 1.1 (what
// PyYAML reads) takes on, yes, n and the like for booleans, ~ for null, and
// digits for numbers, so those, and anything not a plain name, are quoted.
bool bare_key(const std::string& key) {
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_.-]*");
  static const std::set<std::string> kReadAsOther = {"y",     "n",  "yes", "no",  "true",
                                                     "false", "on", "off", "null"};
  return std::regex_match(key, kName) && kReadAsOther.count(ascii_lower(key)) == 0;
}

// `text` with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The argv the trial ran with, its config and trial directory made `file`
// and DIR; empty if none was stored.
std::vector<std::string> stored_argv(const TrialRecord& trial, const std::string& file) {
  const auto argv = trial.system_attrs.find(kArgvAttr);
  const std::string dir = system_attr_text(trial, kTrialDirAttr);
  std::vector<std::string> words;
  if (argv == trial.system_attrs.end() || !argv->second.is_array() || dir.empty()) return words;
  const std::string config = (std::filesystem::path(dir) / kConfigFile).string();
  for (const auto& w : argv->second) {
    if (!w.is_string()) return {};
    words.push_back(replace_all(replace_all(w.get<std::string>(), config, file), dir, "DIR"));
  }
  return words;
}

// The protocol's variables a rerun should see as the trial did: a trainer may
// seed on the trial's number or read its objective's name. Not its database
// id (a rerun is not that trial), nor its paths (the line sets its own).
bool replayed(const std::string& key) {
  static const std::set<std::string> kKept = {"HPO_TRIAL_NUMBER", "HPO_STUDY_NAME",
                                              "HPO_OBJECTIVE",    "HPO_DEVICE",
                                              "HPO_SLOT",         "HPO_GPU_MEMORY_FRACTION"};
  return key.rfind("HPO_", 0) != 0 || kKept.count(key) > 0;
}

// "OMP_NUM_THREADS=2 NUM_WORKERS=0 " and the rest of the env the trial ran
// with, as stored (its study's `env:` after hpo fitted it to the slot), and
// the replayed() protocol variables. A rerun without them gets the shell's
// thread count, and a CPU result is reproducible only for a thread count.
std::string trial_env_settings(const TrialRecord& trial) {
  const auto it = trial.system_attrs.find(kEnvAttr);
  if (it == trial.system_attrs.end() || !it->second.is_object()) return "";
  std::string out;
  for (const auto& [key, value] : it->second.items()) {
    if (!replayed(key) || !value.is_string()) continue;
    out += key + "=" + shell_quote(value.get<std::string>()) + " ";
  }
  return out;
}

}  // namespace

namespace {

// The trainer's argv for trainer_command_line().
std::vector<std::string> trainer_argv(const StudyConfig* study, const TrialRecord& trial,
                                      const std::string& file) {
  std::vector<std::string> argv;
  if (study && !study->trainer.command.empty()) {
    argv = expand_command(
        study->trainer.command,
        {{"config", file},
         {"trial_dir", "DIR"},
         {"trial_number", std::to_string(trial.number)},
         {"study_name", study->name},
         {"study_dir", std::filesystem::absolute(study->path).parent_path().string()}});
    // The program as `hpo run` starts it: a bare hpo-trainer is found beside
    // hpo, where a shell (without it in PATH) would not find it.
    const TrainerProgram program = find_trainer(*study);
    if (!argv.empty() && !program.path.empty()) argv.front() = program.path;
  } else {
    argv = stored_argv(trial, file);
  }
  return argv;
}

}  // namespace

bool trainer_reads_yaml(const StudyConfig* study, const TrialRecord& trial) {
  const std::vector<std::string> argv = trainer_argv(study, trial, "");
  return !argv.empty() && std::filesystem::path(argv.front()).filename() == "hpo-trainer";
}

std::optional<std::string> json_export_hint(const StudyConfig* study,
                                            const std::string& study_named,
                                            const std::string& storage, const TrialRecord& trial) {
  if (trainer_reads_yaml(study, trial)) return std::nullopt;
  const std::string named =
      study ? std::filesystem::absolute(study->path).lexically_normal().string() : study_named;
  return "its trainer reads JSON (the trainer protocol): hpo export --study " + shell_quote(named) +
         (storage.empty() ? "" : " --storage " + shell_quote(shown_url(storage))) + " --trial " +
         std::to_string(trial.number) +
         " -o FILE.json writes the config to run, and the line that runs it";
}

std::string trainer_command_line(const StudyConfig* study, const TrialRecord& trial,
                                 const std::string& file) {
  const std::vector<std::string> argv = trainer_argv(study, trial, file);
  if (argv.empty()) return "";
  std::string line = trial_env_settings(trial) + "HPO_CONFIG=" + shell_quote(file) +
                     " HPO_TRIAL_DIR=DIR HPO_REPORT_FILE=DIR/" + kReportFile;
  for (const auto& w : argv) line += " " + shell_quote(w);
  return line;
}

nlohmann::json trial_run_config(const TrialRecord& trial) {
  const auto it = trial.system_attrs.find(kTrialConfigAttr);
  if (it == trial.system_attrs.end() || !it->second.is_object()) {
    throw StorageError("trial " + std::to_string(trial.number) +
                       " has no stored config (was it run by hpo?)");
  }
  return it->second;
}

std::string config_yaml(const StudyView& view, const TrialRecord& trial, const std::string& notes,
                        const std::string& run_line) {
  const nlohmann::json config = trial_run_config(trial);
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& [key, value] : config.items()) {
    out << YAML::Key;
    if (!bare_key(key)) out << YAML::DoubleQuoted;
    out << key << YAML::Value;
    emit_scalar(out, value);
  }
  out << YAML::EndMap;
  std::string header = "# study " + view.study.name + ", trial " + std::to_string(trial.number) +
                       ": " + view.metric + " = " +
                       (trial.value ? short_number(*trial.value) : "-") + "\n";
  if (!run_line.empty()) header += "# run it with: " + run_line + "\n";
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
