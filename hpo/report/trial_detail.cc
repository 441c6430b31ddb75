#include "hpo/report/trial_detail.h"

#include <filesystem>
#include <sstream>

#include "hpo/report/pareto_view.h"
#include "hpo/report/trial_json.h"
#include "hpo/storage/trial_attrs.h"
#include "samplers/param_value.h"

namespace hpo {

namespace {

// The files a trainer run leaves in its trial directory, those that exist.
std::vector<std::string> trial_files(const TrialRecord& t) {
  std::vector<std::string> files;
  const std::string dir = system_attr_text(t, kTrialDirAttr);
  if (dir.empty()) return files;
  for (const char* name : {"config.json", "report.jsonl", "stdout.log", "stderr.log"}) {
    const std::filesystem::path path = std::filesystem::path(dir) / name;
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) files.push_back(path.string());
  }
  return files;
}

void section(std::ostringstream& out, const std::string& title, const std::string& body) {
  if (body.empty()) return;
  out << title << ":\n";
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
}

}  // namespace

const TrialRecord* find_trial(const StudyView& view, int number) {
  for (const TrialRecord& t : view.trials)
    if (t.number == number) return &t;
  return nullptr;
}

nlohmann::ordered_json trial_detail_json(const TrialRecord& trial) {
  nlohmann::ordered_json j = trial_json(trial);
  const auto config = trial.system_attrs.find(kTrialConfigAttr);
  j["config"] = config != trial.system_attrs.end() ? config->second : nlohmann::json(nullptr);
  const std::string exit = system_attr_text(trial, kExitAttr);
  j["exit"] = exit.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(exit);
  j["files"] = trial_files(trial);
  return j;
}

std::string trial_detail(const StudyView& view, const TrialRecord& t) {
  const nlohmann::ordered_json j = trial_detail_json(t);
  std::ostringstream out;
  out << "trial " << t.number << " of study " << view.study.name << ": " << state_text(view, t);
  if (is_multi_objective(view.study) && has_all_values(view, t)) {
    out << ", " << objectives_text(view, t)
        << (pareto_numbers(view).count(t.number) ? " (on the Pareto front)" : "")
        << (trial_feasible(t) ? "" : " (infeasible: violates its constraints)");
  } else if (t.value) {
    out << ", " << view.metric << " = " << short_number(*t.value);
  }
  out << "\n";
  out << "  host " << (j["host"].is_string() ? j["host"].get<std::string>() : "-") << ", slot "
      << (j["slot"].is_string() ? j["slot"].get<std::string>() : "-") << ", started "
      << t.datetime_start << (t.datetime_complete.empty() ? "" : ", ended " + t.datetime_complete)
      << " (UTC)\n";
  std::string params;
  for (const auto& [name, value] : j["params"].items())
    params += name + " = " + value.dump() + "\n";
  section(out, "params", params);
  if (!j["config"].is_null()) section(out, "config it ran with", j["config"].dump(2));
  std::string metrics;
  for (const auto& [name, value] : j["metrics"].items())
    metrics += name + " = " + value.dump() + "\n";
  section(out, "final metrics", metrics);
  std::string curve;
  for (const auto& [step, value] : j["intermediate"].items())
    curve += step + ": " + value.dump() + "\n";
  section(out, "intermediate values (step: value)", curve);
  std::string ended;
  if (!j["exit"].is_null()) ended += "exit: " + j["exit"].get<std::string>() + "\n";
  if (j.contains("fail_reason")) ended += "reason: " + j["fail_reason"].get<std::string>() + "\n";
  if (j.contains("bad_report_lines"))
    ended += "bad report lines: " + j["bad_report_lines"].dump() + "\n";
  section(out, "how it ended", ended);
  if (j.contains("stderr_tail"))
    section(out, "stderr (its last lines)", j["stderr_tail"].get<std::string>());
  std::string files;
  for (const auto& f : j["files"]) files += f.get<std::string>() + "\n";
  section(out, "files", files);
  return out.str();
}

}  // namespace hpo
