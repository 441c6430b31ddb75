#include "hpo/run/trainer_check.h"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

#include "hpo/config/placeholders.h"
#include "hpo/launch/process.h"
#include "hpo/launch/program_path.h"
#include "hpo/launch/report_reader.h"
#include "hpo/launch/trainer_server.h"
#include "hpo/launch/trainer_text.h"
#include "hpo/run/atomic_file.h"
#include "hpo/run/objectives.h"
#include "hpo/run/sampling_space.h"
#include "hpo/run/trainer_invocation.h"
#include "hpo/run/trial_config.h"
#include "hpo/run/trial_files.h"
#include "hpo/storage/optuna_codec.h"
#include "samplers/random_sampler.h"

namespace hpo {

namespace fs = std::filesystem;

namespace {

// Programs that run the script they are given as their first non-option
// argument.
bool is_interpreter(const std::string& program) {
  static const std::set<std::string> names = {"python",  "python3", "bash",  "sh",
                                              "Rscript", "julia",   "node",  "perl",
                                              "ruby",    "zsh",     "pypy3", "lua"};
  std::string name = fs::path(program).filename().string();
  // python3.11, python3.12: the version does not matter here.
  const auto dot = name.find('.');
  if (name.rfind("python", 0) == 0 && dot != std::string::npos) name = name.substr(0, dot);
  return names.count(name) > 0;
}

// The interpreter a script's "#!" line names ("" when the file has none).
std::string shebang_interpreter(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || line.rfind("#!", 0) != 0) return "";
  const auto start = line.find_first_not_of(" \t", 2);
  if (start == std::string::npos) return "";
  const auto end = line.find_first_of(" \t\r", start);
  std::string interpreter = line.substr(start, end == std::string::npos ? end : end - start);
  if (fs::path(interpreter).filename() == "env" && end != std::string::npos) {
    // "#!/usr/bin/env python3": the program env looks up in PATH.
    const auto name_start = line.find_first_not_of(" \t", end);
    if (name_start == std::string::npos) return interpreter;
    const auto name_end = line.find_first_of(" \t\r", name_start);
    return line.substr(name_start,
                       name_end == std::string::npos ? name_end : name_end - name_start);
  }
  return interpreter;
}

FileCheck found(const std::string& what, const std::string& path) {
  const std::string resolved = resolve_program(path);
  if (resolved.empty()) return {false, what + " '" + path + "' was not found or is not executable"};
  return {true, what + " " + resolved};
}

}  // namespace

bool is_stock_trainer(const std::string& program) {
  return fs::path(program).filename() == "hpo-trainer";
}

std::vector<FileCheck> check_trainer_files(const StudyConfig& study, const std::string& program) {
  std::vector<FileCheck> checks;
  const std::string interpreter = shebang_interpreter(program);
  if (!interpreter.empty()) checks.push_back(found("its #! interpreter", interpreter));
  const auto& command = study.trainer.command;
  if (!is_interpreter(program)) return checks;
  // The script: the first argument that is not an option.
  for (size_t i = 1; i < command.size(); ++i) {
    // python3 -m MODULE, -c CODE, Rscript -e EXPR: no script file to find.
    if (command[i] == "-m" || command[i] == "-c" || command[i] == "-e") break;
    if (command[i].empty() || command[i][0] == '-') continue;
    if (command[i].find("{config}") != std::string::npos ||
        command[i].find("{trial_dir}") != std::string::npos)
      break;  // a per-trial argument: the script, if any, came before
    const std::string script = expand_placeholders(
        command[i], {{"study_dir", fs::absolute(study.path).parent_path().string()},
                     {"study_name", study.name},
                     {"trial_number", "0"}});
    std::error_code ec;
    if (!fs::is_regular_file(script, ec) || ::access(script.c_str(), R_OK) != 0)
      checks.push_back({false, "script '" + script + "' (" + fs::path(program).filename().string() +
                                   "'s argument) is missing or unreadable"});
    else
      checks.push_back({true, "script " + fs::absolute(script).lexically_normal().string()});
    break;
  }
  return checks;
}

namespace {

// A point of the space as a trial would get it (drawn at random, which
// respects every domain), the fixed values, then the smoke values on top.
nlohmann::ordered_json smoke_config(const StudyConfig& study) {
  const SamplingSpace space(study.space.params);
  RandomSampler sampler(0, study.objective.direction);
  nlohmann::ordered_json config =
      trial_config(space.to_stored(sampler.ask(space.bounded(), 0)), study.space.fixed);
  for (const auto& [name, value] : *study.smoke) config[name] = param_value_to_json(value);
  return config;
}

// Reads the report the run left and judges it against the protocol.
void judge_report(const StudyConfig& study, const std::string& path, SmokeResult& r) {
  ReportReader reader(path);
  bool final_seen = false;
  for (const ReportEvent& e : reader.read_new(true)) {
    if (e.kind == ReportEvent::Kind::kEpoch) ++r.epoch_lines;
    if (e.kind == ReportEvent::Kind::kInvalid) {
      ++r.bad_lines;
      if (r.problems.size() < 5)
        r.problems.push_back("report line " + std::to_string(e.line) + ": " + e.problem);
    }
    if (e.kind != ReportEvent::Kind::kFinal) continue;
    final_seen = true;
    const auto it = e.metrics.find(study.objective.metric);
    if (it == e.metrics.end()) {
      r.problems.push_back("the final line has no '" + study.objective.metric +
                           "', the study's objective");
    } else {
      r.final_value = std::to_string(it->second);
    }
    // The other objectives and the constraints' metrics: a trial fails without them.
    const GoalValues goals = goal_values(study_goals(study), e.metrics);
    if (it != e.metrics.end() && !goals.problem.empty())
      r.problems.push_back("the final line: " + goals.problem);
  }
  if (!final_seen)
    r.problems.push_back("no final line in " + std::string(kReportFile) +
                         " ({\"type\": \"final\", \"metrics\": {...}}; docs/trainer-protocol.md)");
}

}  // namespace

SmokeResult smoke_run(const StudyConfig& study, const std::string& program, double timeout_s) {
  SmokeResult r;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = (fs::path(tmp && *tmp ? tmp : "/tmp") / "hpo-doctor-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) {
    r.problems.push_back("cannot make a scratch directory: " + pattern);
    return r;
  }
  r.dir = pattern;
  write_file_atomically((fs::path(r.dir) / kConfigFile).string(),
                        smoke_config(study).dump(2) + "\n");
  Slot cpu;
  cpu.name = "doctor";
  cpu.env = {{"CUDA_VISIBLE_DEVICES", ""}};
  TrainerInvocation run = trainer_invocation(study, program, cpu, r.dir, "0", "0");
  LaunchSpec spec{run.argv, run.env, (fs::path(r.dir) / kStdoutFile).string(),
                  (fs::path(r.dir) / kStderrFile).string()};
  try {
    // With trainer.serve, the smoke trial goes to a server as hpo run sends it.
    std::unique_ptr<TrainerServer> server;
    std::unique_ptr<Process> own;
    if (study.trainer.serve) {
      server = std::make_unique<TrainerServer>(
          spec, (fs::path(r.dir) / "trainer-server.doctor.log").string());
      server->start(spec);
    } else {
      own = std::make_unique<Process>(spec);
    }
    RunningTrainer& trainer = server ? static_cast<RunningTrainer&>(*server) : *own;
    r.ran = true;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::microseconds(static_cast<int64_t>(timeout_s * 1e6));
    std::optional<ExitStatus> status;
    while (!(status = trainer.poll()) && std::chrono::steady_clock::now() < deadline)
      trainer.wait_for(std::chrono::milliseconds(50));
    if (!status) {
      trainer.signal_group(SIGKILL);
      trainer.wait_for(std::chrono::seconds(5));
      r.exit = "timed out after " + std::to_string(static_cast<int>(timeout_s)) + " s";
    } else {
      r.exit = status->describe();
      r.ok = status->success();
    }
    if (server && status && status->success() && !server->replied())
      r.problems.push_back(
          "trainer.serve is true, but the trainer exited after the trial instead of replying "
          "{\"exit\": N} on its stdout and waiting for the next (docs/trainer-protocol.md)");
  } catch (const LaunchError& e) {
    r.exit = std::string("could not start: ") + e.what();
  }
  judge_report(study, (fs::path(r.dir) / kReportFile).string(), r);
  r.ok = r.ok && r.problems.empty() && r.bad_lines == 0;
  r.stderr_tail = file_tail((fs::path(r.dir) / kStderrFile).string(), 2000);
  if (r.ok) {
    std::error_code ec;
    fs::remove_all(r.dir, ec);
    r.dir.clear();
  }
  return r;
}

}  // namespace hpo
