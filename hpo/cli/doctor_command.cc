// `hpo doctor`: checks a study before a sweep: the GPU and its driver, the
// trainer program, the data file and the config, and estimates each trial's
// memory and time, warning when the sweep would run out of GPU memory or
// oversubscribe the CPU.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hpo/cli/at_least.h"
#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/space_view.h"
#include "hpo/cli/study_locator.h"
#include "hpo/config/config_error.h"
#include "hpo/gpu/command_output.h"
#include "hpo/gpu/gpu_context.h"
#include "hpo/gpu/memory_estimate.h"
#include "hpo/gpu/slot_plan.h"
#include "hpo/gpu/space_fit.h"
#include "hpo/run/stderr_summary.h"
#include "hpo/run/trainer_check.h"
#include "hpo/run/trainer_program.h"
#include "samplers/param_value.h"

namespace hpo {

namespace {

struct DoctorFlags {
  std::string study;
  std::string profile;
  std::string n_jobs;  // empty: the study's n_jobs
  int cores = 0;
};

// The doctor's findings, printed as they come.
class Findings {
 public:
  void ok(const std::string& topic, const std::string& text) { line("ok", topic, text); }
  void info(const std::string& topic, const std::string& text) { line("info", topic, text); }
  void warn(const std::string& topic, const std::string& text) {
    line("warning", topic, text);
    ++warnings_;
  }
  int warnings() const { return warnings_; }

 private:
  void line(const char* level, const std::string& topic, const std::string& text) {
    std::cout << "  " << level << std::string(9 - std::string(level).size(), ' ') << topic << ": "
              << text << "\n";
  }
  int warnings_ = 0;
};

std::string env_of(const StudyConfig& study, const std::string& name) {
  std::string value;
  for (const auto& [key, v] : study.env) {
    if (key == name) value = v;
  }
  return value;
}

void check_gpu(const GpuContext& c, Findings& f) {
  const GpuDetection& d = c.detection;
  const bool wants_gpu = !c.choice.profile.cpu;
  if (d.tool.empty()) {
    const std::string text = "nvidia-smi not found: no NVIDIA driver, trials run on CPU";
    wants_gpu ? f.warn("GPU", text + ", but profile " + c.choice.profile.name + " is for GPUs")
              : f.info("GPU", text);
    return;
  }
  if (!d.problem.empty()) {
    f.warn("GPU", d.problem);
    return;
  }
  for (const std::string& w : d.warnings) f.warn("GPU", w);
  if (d.devices.empty()) {
    f.warn("GPU",
           "nvidia-smi lists no GPU" + (d.visible_note.empty() ? "" : " (" + d.visible_note + ")"));
    return;
  }
  const std::string driver = driver_version();
  std::ostringstream text;
  text << d.devices.size() << " x " << d.devices.front().name << " ("
       << short_number(d.devices.front().memory_total_gib()) << " GiB), driver "
       << (driver.empty() ? "unknown" : driver);
  if (!d.visible_note.empty()) text << "; " << d.visible_note;
  driver.empty() ? f.warn("GPU", text.str() + ": nvidia-smi did not report the driver version")
                 : f.ok("GPU", text.str());
}

// hpo-trainer says what it was built with. On a GPU plan a CPU-only build
// fails every trial with no_cuda, and hpo run stops at the first (exit 6):
// better to hear it before the sweep. Other trainers are not asked: an
// unknown flag might start a training run.
void check_trainer_build(const std::string& path, bool on_gpu, Findings& f) {
  if (!is_stock_trainer(path)) return;
  const CommandOutput out = run_command({path, "--capabilities"}, 60);
  nlohmann::json caps;
  try {
    if (out.ok()) caps = nlohmann::json::parse(out.out);
  } catch (const nlohmann::json::exception&) {
  }
  if (!caps.is_object()) {
    f.warn("trainer build",
           path + " --capabilities: " + (out.ok() ? "printed no JSON object" : out.problem()));
    return;
  }
  const bool cuda = caps.value("cuda_built", false);
  const int gpus = caps.value("cuda_devices", 0);
  const std::string text =
      "LibTorch " + caps.value("torch", std::string("?")) +
      (cuda ? " with CUDA, sees " + std::to_string(gpus) + " GPU(s)" +
                  (caps.value("cuda_graphs", false) ? ", replays steps as CUDA graphs" : "")
            : " (CPU only)");
  if (on_gpu && !cuda) {
    f.warn("trainer build",
           text +
               ": on this GPU plan every trial would fail with no_cuda; build hpo-trainer "
               "against a CUDA LibTorch (tools/setup.sh does when python3 has a CUDA torch; "
               "docs/hpo-trainer.md, Building against CUDA), or use --gpu-profile cpu");
  } else if (on_gpu && gpus == 0) {
    f.warn("trainer build", text + ": the trials' GPUs are not visible to it");
  } else {
    f.ok("trainer build", text);
  }
}

// The trainer's resolved path, or "" when it is not found (a warning).
std::string check_trainer(const StudyConfig& study, bool on_gpu, Findings& f) {
  const TrainerProgram trainer = find_trainer(study);
  if (trainer.path.empty()) {
    f.warn("trainer", trainer.problem);
    return "";
  }
  f.ok("trainer", trainer.path);
  for (const FileCheck& c : check_trainer_files(study, trainer.path)) {
    if (c.ok)
      f.ok("trainer", c.text);
    else
      f.warn("trainer", c.text);
  }
  check_trainer_build(trainer.path, on_gpu, f);
  return trainer.path;
}

// One run of the trainer on the study's smoke: config, judged by the
// protocol: what a sweep would otherwise find out at its first trial.
void check_smoke(const StudyConfig& study, const std::string& program, Findings& f) {
  if (!study.smoke) {
    f.info("smoke",
           "no smoke: config in the study file; add one (for example smoke: {epochs: 1}) "
           "for hpo doctor to run the trainer once and check its report");
    return;
  }
  if (program.empty()) return;  // already a warning
  const double timeout = study.trainer.timeout_s > 0 ? study.trainer.timeout_s : 300;
  const SmokeResult r = smoke_run(study, program, timeout);
  std::string text = "one run on the smoke config: " + r.exit + ", " +
                     std::to_string(r.epoch_lines) + " epoch line(s)";
  if (!r.final_value.empty()) text += ", final " + study.objective.metric + " = " + r.final_value;
  if (r.ok) {
    f.ok("smoke", text);
    return;
  }
  if (r.bad_lines > 0) text += ", " + std::to_string(r.bad_lines) + " bad report line(s)";
  for (const std::string& p : r.problems) text += "; " + p;
  const std::string said = last_meaningful_line(r.stderr_tail);
  if (!said.empty()) text += "; its stderr ends: " + said;
  if (!r.dir.empty()) text += " (its files: " + r.dir + ")";
  f.warn("smoke", text);
}

// The stock trainer reads a CSV named by the fixed value `data`; empty or
// absent means its built-in synthetic panel.
void check_data(const StudyConfig& study, Findings& f) {
  for (const auto& [key, value] : study.space.fixed) {
    if (key != "data") continue;
    const auto* path = std::get_if<std::string>(&value);
    if (!path || path->empty()) break;
    if (::access(path->c_str(), R_OK) != 0) {
      f.warn("data",
             "'" + *path + "' is missing or unreadable (relative paths start from this directory)");
    } else {
      f.ok("data", *path);
    }
    return;
  }
  f.info("data",
         "no `data` file in the fixed values (the stock trainer then uses its synthetic panel)");
}

// The space as trials get it on the profile (space_fit.h); the study then
// holds it, so the memory and time estimates below are for those trials.
void check_space(StudyConfig& study, const GpuProfile& profile, Findings& f) {
  try {
    FittedSpace fit = fit_search_space(study.space, profile);
    for (const std::string& note : fit.notes) f.info("space", note);
    for (const std::string& line : space_lines(fit)) f.info("space", line);
    study.space = std::move(fit.declared);
  } catch (const ConfigError& e) {
    f.warn("space", e.what());
  }
}

void check_memory(const StudyConfig& study, const GpuProfile& profile, const SlotPlan& plan,
                  Findings& f) {
  const ModelShape s = worst_case_shape(study.space, study.env, plan.on_gpu);
  const MemoryEstimate e = estimate_memory(s, plan.on_gpu);
  std::ostringstream what;
  what << "worst case " << s.model << " batch_size " << s.batch_size << ", hidden_size "
       << s.hidden_size << ", layers " << s.layers << ", lookback " << s.lookback
       << (s.amp ? ", AMP" : "") << ": " << e.params << " params, ~"
       << format_bytes(e.total_bytes()) << " per trial (model " << format_bytes(e.model_bytes)
       << ", activations " << format_bytes(e.activation_bytes) << ")";
  double budget = 0;
  std::string budget_text;
  if (plan.on_gpu) {
    const int per_gpu = (plan.n_jobs() + plan.gpus - 1) / plan.gpus;
    const double gb = profile.memory_fraction ? profile.vram_gb * *profile.memory_fraction
                                              : profile.vram_gb / per_gpu;
    budget = gb * 1024 * 1024 * 1024;
    budget_text =
        format_bytes(budget) + " per trial (" + short_number(profile.vram_gb) + " GB " +
        (profile.memory_fraction ? "x memory fraction " + short_number(*profile.memory_fraction)
                                 : "/ " + std::to_string(per_gpu) + " trial(s) per GPU") +
        ")";
  } else {
    budget = host_memory_bytes() / std::max(1, plan.n_jobs());
    budget_text =
        format_bytes(budget) + " of RAM per trial (" + std::to_string(plan.n_jobs()) + " at once)";
  }
  if (e.total_bytes() > budget) {
    f.warn("memory", what.str() + " exceeds the budget of " + budget_text + ": out-of-memory risk");
  } else {
    f.ok("memory", what.str() + "; budget " + budget_text);
  }
}

// Trials get their slot's OMP_NUM_THREADS, whatever the study's env says.
void check_cpu(const StudyConfig& study, const SlotPlan& plan, const GpuContext& c, Findings& f) {
  for (const std::string& w : plan.warnings) f.warn("slots", w);
  f.info("CPU", "cores: " + c.cores_reason);
  const std::string threads = std::to_string(plan.threads_per_trial);
  const std::string omp = env_of(study, "OMP_NUM_THREADS");
  for (const std::string& note : plan.fit_notes) f.info("CPU", note);
  if (!omp.empty() && omp != threads) {
    f.info("CPU", "the study's OMP_NUM_THREADS=" + omp + " is replaced by each slot's " + threads);
  }
  std::ostringstream text;
  text << plan.n_jobs() << " trial(s) at once x ";
  if (plan.loader_workers > 0) text << "(";
  text << threads << " thread(s)";
  if (plan.loader_workers > 0) text << " + " << plan.loader_workers << " data-loader worker(s))";
  const int used = plan.n_jobs() * (plan.threads_per_trial + plan.loader_workers);
  text << " = " << used << " of " << c.cores
       << " core(s); OMP_NUM_THREADS: " << plan.threads_reason;
  if (!plan.cpu_warning.empty()) {
    f.warn("CPU", plan.cpu_warning);
  } else if (used > c.cores) {
    f.warn("CPU", text.str() + ": oversubscribed; lower n_jobs");
  } else {
    f.ok("CPU", text.str());
  }
}

void estimate_time(const StudyConfig& study, const GpuProfile& profile, bool on_gpu, Findings& f) {
  const ModelShape s = worst_case_shape(study.space, study.env, on_gpu);
  const int64_t samples =
      fixed_int(study.space.fixed, "max_train_samples", kTrainerMaxTrainSamples);
  const int64_t epochs = fixed_int(study.space.fixed, "epochs", 5);
  if (samples <= 0) {
    f.info("time", "max_train_samples is 0 (every sample): no estimate without the data's size");
    return;
  }
  const double flops = training_flops(s, samples, epochs);
  std::ostringstream text;
  text << "worst case ~" << short_number(flops / 1e12) << " TFLOP of training per trial (" << epochs
       << " epoch(s) x " << samples << " samples)";
  if (profile.effective_tflops) {
    text << ", roughly " << short_number(flops / (*profile.effective_tflops * 1e12))
         << " s of compute at " << short_number(*profile.effective_tflops)
         << " TFLOP/s (data loading and validation come on top)";
  }
  f.info("time", text.str());
}

int diagnose(const DoctorFlags& flags) {
  StudyConfig study = load_study(flags.study);  // bad input: ConfigError, exit 2
  const std::optional<int> n_jobs = planned_n_jobs(flags.n_jobs, study.n_jobs);
  const GpuContext context = resolve_gpu_context(flags.profile, flags.cores);
  const GpuProfile& profile = context.choice.profile;
  const SlotPlan plan = plan_slots(context.detection.devices, profile, n_jobs, context.cores,
                                   cpu_wants(study.env, study.env_fixed));

  std::cout << "hpo doctor: study " << study.name << " (" << study.path << ")\n";
  Findings f;
  f.ok("config", "study file and search space are valid (" +
                     std::to_string(study.space.params.size()) + " sampled parameter(s))");
  check_gpu(context, f);
  f.ok("profile", profile.name + " (" + std::string(to_string(context.choice.source)) + ": " +
                      context.choice.reason + ")");
  const std::string program = check_trainer(study, plan.on_gpu, f);
  // The data file, memory and time follow hpo-trainer's keys and model; for
  // another trainer they would be made up.
  const bool stock = program.empty() || is_stock_trainer(program);
  if (stock) check_data(study, f);
  check_space(study, profile, f);
  if (stock) check_memory(study, profile, plan, f);
  check_cpu(study, plan, context, f);
  if (stock) {
    estimate_time(study, profile, plan.on_gpu, f);
  } else {
    f.info("estimates", "memory and time are estimated for hpo-trainer's model only; " +
                            std::filesystem::path(program).filename().string() +
                            " is another trainer");
  }
  check_smoke(study, program, f);
  std::cout << (f.warnings() == 0 ? "no problems found"
                                  : std::to_string(f.warnings()) + " warning(s)")
            << "\n";
  return f.warnings() == 0 ? kExitOk : 1;
}

}  // namespace

void add_doctor_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<DoctorFlags>();
  CLI::App* cmd = app.add_subcommand(
      "doctor",
      "Check a study before a sweep: GPU, driver, trainer (and one smoke run), data, memory, CPU");
  cmd->add_option("--study", flags->study, "Study name (studies/NAME.yaml) or path to a study file")
      ->required();
  cmd->add_option(
      "--gpu-profile", flags->profile,
      "Profile name or file (default: $GPU_PROFILE, else the one matching the detected GPU)");
  cmd->add_option("-j,--n-jobs", flags->n_jobs,
                  "Trials at once, a number or auto (default: the study file's n_jobs)");
  cmd->add_option("--cores", flags->cores,
                  "Check against this many CPU cores (default: the cores hpo may use)")
      ->check(at_least(1));
  cmd->footer(
      "Memory per trial follows the stock trainer's model: params x 4 bytes x (weights + grads + 2 "
      "AdamW\n"
      "moments), plus batch x lookback x hidden x layers activations (halved under AMP), for the "
      "largest\n"
      "values the search space allows; the budget is the profile's VRAM shared by the trials on "
      "one GPU.\n"
      "The data, memory and time checks apply to hpo-trainer. Any trainer's program, #! "
      "interpreter\n"
      "and script are checked, and with a smoke: config in the study file (e.g. smoke: {epochs:\n"
      "1}) the trainer runs once on it in a scratch directory and its report is checked.\n"
      "Exit codes: 0 no problems; 1 warnings (read them before a long sweep); 2 bad input.\n\n"
      "Examples:\n"
      "  hpo doctor --study quick_sweep\n"
      "  hpo doctor --study full_sweep --gpu-profile rtx_4090 --n-jobs auto");
  cmd->callback([flags, &exit_code] { exit_code = diagnose(*flags); });
}

}  // namespace hpo
