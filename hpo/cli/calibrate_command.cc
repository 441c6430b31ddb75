// `hpo gpu calibrate`: measures on the machine at hand what a GPU profile
// otherwise guesses. For each batch size the study's space allows on the
// profile, a short run of the study's own trainer on the largest model the
// space holds times its training steps and reads its peak memory; then a
// profile is written with the batches that fit with a margin, how many trials
// run at once, and the samples/s measured, and the study's GPU-hours are
// estimated. On the `cpu` profile it measures the host (peak RSS), so CI runs it.
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/output_guard.h"
#include "hpo/cli/study_locator.h"
#include "hpo/config/config_error.h"
#include "hpo/gpu/command_output.h"
#include "hpo/gpu/cpu_fit.h"
#include "hpo/gpu/gpu_context.h"
#include "hpo/gpu/memory_estimate.h"
#include "hpo/gpu/slot_plan.h"
#include "hpo/gpu/space_fit.h"
#include "hpo/run/atomic_file.h"
#include "hpo/run/oom.h"
#include "hpo/run/progress.h"
#include "hpo/run/trainer_invocation.h"
#include "hpo/run/trainer_program.h"
#include "hpo/run/trial_files.h"
#include "samplers/param_value.h"

namespace hpo {

namespace {

namespace fs = std::filesystem;

struct CalibrateFlags {
  std::string study;
  std::string profile;
  std::string out;  // empty: print the profile
  int steps = 20;
  double margin = 0.8;  // of the memory a trial may fill
};

// One batch size's short run.
struct Measurement {
  int64_t batch = 0;
  bool ran = false;
  std::string problem;  // why not; "out of memory: ..." when it did not fit
  double samples_per_s = 0;
  double peak_mib = 0;  // GPU allocator's peak on a GPU, else the process's peak RSS
  int64_t train_set = 0;  // the trainer's training samples, for time estimates
};

// The batch sizes trials draw on this profile, ascending.
std::vector<int64_t> batch_choices(const FittedSpace& fit, const ModelShape& shape) {
  std::vector<int64_t> out;
  for (const ParamSpec& p : fit.sampled) {
    if (p.name != "batch_size") continue;
    if (const auto* c = std::get_if<CategoricalDistribution>(&p.distribution)) {
      for (const ParamValue& v : c->choices)
        if (is_numeric(v)) out.push_back(static_cast<int64_t>(as_double(v)));
    } else if (const auto* i = std::get_if<IntDistribution>(&p.distribution)) {
      // Doublings from low (at least 1), then high itself.
      for (int64_t b = std::max<int64_t>(1, i->low); b <= i->high; b *= 2) out.push_back(b);
      if (out.empty() || out.back() != i->high) out.push_back(i->high);
    }
  }
  if (out.empty()) out.push_back(shape.batch_size);  // fixed or absent: the one it runs
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

nlohmann::json fixed_json(const ParamValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return nullptr;
}

// The study's fixed values, the largest model and `batch`, trained for two
// short epochs: the second is timed (the first pays for start-up, cuDNN's
// benchmark and graph capture).
nlohmann::json calibration_config(const StudyConfig& study, const ModelShape& shape, int64_t batch,
                                  int steps) {
  nlohmann::json c = nlohmann::json::object();
  for (const auto& [name, value] : study.space.fixed) c[name] = fixed_json(value);
  c["model"] = shape.model;
  c["hidden_size"] = shape.hidden_size;
  c["layers"] = shape.layers;
  c["lookback"] = shape.lookback;
  c["kernel_size"] = shape.kernel_size;
  c["batch_size"] = batch;
  c["grad_accum"] = 1;
  c["epochs"] = 2;
  c["patience"] = 1000;
  c["max_train_samples"] = batch * steps;
  c["max_valid_samples"] = 256;
  if (c.contains("cv_scheme")) c["cv_scheme"] = "none";
  return c;
}

// The last epoch line of a report file.
nlohmann::json last_epoch(const std::string& report) {
  std::ifstream in(report);
  nlohmann::json last;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("type", "") == "epoch" && j.contains("metrics")) last = j;
  }
  return last;
}

Measurement measure(const StudyConfig& study, const ModelShape& shape, int64_t batch,
                    const Slot& slot, const std::string& program, const fs::path& dir,
                    const CalibrateFlags& flags, bool cpu) {
  Measurement m;
  m.batch = batch;
  const fs::path trial = dir / ("batch_" + std::to_string(batch));
  fs::create_directories(trial);
  const std::string config = (trial / kConfigFile).string(),
                    report = (trial / kReportFile).string();
  std::ofstream(config) << calibration_config(study, shape, batch, flags.steps).dump() << "\n";
  // Started as `hpo run` starts a trial of this study on this slot.
  const TrainerInvocation run =
      trainer_invocation(study, program, slot, trial.string(), "calibrate", "calibrate");
  for (const auto& [k, v] : run.env)
    ::setenv(k.c_str(), v.c_str(), 1);  // calibrate runs nothing else
  const std::vector<std::string>& argv = run.argv;
  const CommandOutput out =
      run_command(argv, study.trainer.timeout_s > 0 ? study.trainer.timeout_s : 3600);
  const nlohmann::json epoch = last_epoch(report);
  if (!out.ok() || !epoch.is_object()) {
    const std::string oom = find_oom_line(out.err + "\n" + out.out);
    m.problem = !oom.empty() ? "out of memory: " + oom
                : out.ok()   ? "the trainer reported no epoch line"
                             : out.problem();
    return m;
  }
  const nlohmann::json& metrics = epoch["metrics"];
  m.samples_per_s = metrics.value("samples_per_s", 0.0);
  if (!(m.samples_per_s > 0)) {  // nothing measured is not a fit
    m.problem = "the trainer's epoch line has no samples_per_s";
    return m;
  }
  m.ran = true;
  // On the CPU the host's memory is what fills: the process's peak RSS.
  m.peak_mib = !cpu && metrics.contains("peak_gpu_mem_mb") ? metrics.value("peak_gpu_mem_mb", 0.0)
                                                           : metrics.value("peak_mem_mb", 0.0);
  m.train_set = static_cast<int64_t>(metrics.value("train_set_samples", 0.0));
  return m;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::localtime(&now));
  return text;
}

// What the measurements make of the profile.
struct Calibrated {
  std::vector<int64_t> fit;  // batches that ran within the margin
  double budget_mib = 0;  // what one device (or the host) holds
  double peak_mib = 0;  // the largest fitting batch's peak
  int parallel = 1;
};

// `cpu_slots` caps the trials at once on the CPU, where the cores run out
// before the memory does.
Calibrated judge(const std::vector<Measurement>& runs, double budget_mib, double margin,
                 std::optional<int> cpu_slots) {
  Calibrated c;
  c.budget_mib = budget_mib;
  for (const Measurement& m : runs) {
    if (!m.ran || m.peak_mib > margin * budget_mib) continue;
    c.fit.push_back(m.batch);
    c.peak_mib = std::max(c.peak_mib, m.peak_mib);
  }
  if (c.peak_mib > 0)
    c.parallel = std::max(1, static_cast<int>(std::floor(margin * budget_mib / c.peak_mib)));
  if (cpu_slots) c.parallel = std::min(c.parallel, std::max(1, *cpu_slots));
  return c;
}

std::string profile_yaml(const CalibrateFlags& flags, const GpuContext& context,
                         const std::vector<Measurement>& runs, const Calibrated& c) {
  const GpuProfile& base = context.choice.profile;
  const bool cpu = base.cpu || context.detection.devices.empty();
  const std::string device = cpu ? "this host's CPU" : context.detection.devices.front().name;
  std::ostringstream y;
  y << "# Calibrated by `hpo gpu calibrate --study " << flags.study << "` on " << device << ", "
    << today() << ",\n# from profile " << base.name << ", on the largest model of the space ("
    << flags.steps << " timed steps a batch):\n#   batch  samples/s  peak MiB\n";
  for (const Measurement& m : runs) {
    y << "#   " << std::setw(5) << m.batch << "  ";
    if (m.ran)
      y << std::setw(9) << static_cast<int64_t>(m.samples_per_s) << "  " << std::setw(8)
        << static_cast<int64_t>(m.peak_mib) << "\n";
    else
      y << m.problem << "\n";
  }
  y << "description: " << (cpu ? "CPU" : device) << ", calibrated for study " << flags.study
    << "\n";
  y << "device: " << (cpu ? "cpu" : "gpu") << "\n";
  if (!cpu) {
    y << "match: [\"" << device << "\"]\n";
    y << "vram_gb: " << fixed_number(c.budget_mib / 1024.0, 2) << "\n";
  }
  y << "max_parallel_trials: " << c.parallel << "\n";
  y << "memory_per_model_gb: " << fixed_number(c.peak_mib / 1024.0, 2) << "\n";
  y << "batch_size_choices: [";
  for (size_t i = 0; i < c.fit.size(); ++i) y << (i ? ", " : "") << c.fit[i];
  y << "]\n";
  if (!cpu)
    y << "memory_fraction: " << fixed_number(std::floor(100.0 / c.parallel) / 100.0, 2) << "\n";
  if (base.threads_per_trial) y << "threads_per_trial: " << *base.threads_per_trial << "\n";
  if (base.max_train_samples) y << "max_train_samples: " << *base.max_train_samples << "\n";
  if (base.effective_tflops) y << "effective_tflops: " << *base.effective_tflops << "\n";
  return y.str();
}

// The folds a trial trains: cv_folds (the trainer's default 4) when the
// study fixes a cv_scheme other than none, else 1.
int64_t cv_folds(const FixedValues& fixed) {
  for (const auto& [name, value] : fixed) {
    if (name != "cv_scheme") continue;
    const auto* scheme = std::get_if<std::string>(&value);
    if (scheme && *scheme != "none") return std::max<int64_t>(1, fixed_int(fixed, "cv_folds", 4));
  }
  return 1;
}

// One trial's and the whole study's device time, from the samples/s of the
// batches trials will draw (uniformly, so their mean time).
void print_estimate(const StudyConfig& study, const FittedSpace& fit,
                    const std::vector<Measurement>& runs, const Calibrated& c, bool cpu,
                    std::ostream& out) {
  // The samples an epoch trains on: the study's or profile's, else the
  // trainer's default (0: every sample).
  const int64_t samples =
      fixed_int(fit.declared.fixed, "max_train_samples", kTrainerMaxTrainSamples);
  double seconds = 0;
  int counted = 0;
  for (const Measurement& m : runs) {
    if (!m.ran || std::find(c.fit.begin(), c.fit.end(), m.batch) == c.fit.end()) continue;
    const int64_t n = samples > 0 ? std::min(samples, m.train_set) : m.train_set;
    seconds += static_cast<double>(n) / std::max(m.samples_per_s, 1e-9);
    ++counted;
  }
  if (counted == 0) {
    out << "no batch size fits: nothing to estimate\n";
    return;
  }
  const int64_t epochs = fixed_int(study.space.fixed, "epochs", 5);
  const int64_t folds = cv_folds(study.space.fixed);
  const double trial_s = static_cast<double>(epochs * folds) * seconds / counted;
  const double study_h = trial_s * study.n_trials / 3600.0;
  const std::string unit = cpu ? "CPU" : "GPU";
  out << "one trial: ~" << fixed_number(trial_s, 2) << " s of training (" << epochs << " epoch(s)"
      << (folds > 1 ? " x " + std::to_string(folds) + " folds" : "")
      << ", the largest model, mean over the batch sizes; validation comes on top)\n"
      << "the study (" << study.n_trials << " trials): ~" << fixed_number(study_h, 2) << " " << unit
      << "-hours (" << Progress::format_duration(study_h * 3600) << "), ~"
      << Progress::format_duration(study_h * 3600 / c.parallel) << " with " << c.parallel
      << " trial(s) at once per " << (cpu ? "host" : "GPU") << "\n";
}

// Whole or not at all, its directory made (gpu_profiles/ may not exist yet).
void write_profile(const std::string& path, const std::string& yaml) {
  try {
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent);
    write_file_atomically(path, yaml);
  } catch (const std::exception& e) {
    throw ConfigError("--out " + path + ": " + e.what());
  }
}

int calibrate(const CalibrateFlags& flags) {
  const StudyConfig study = load_study(flags.study);
  if (!flags.out.empty())
    refuse_overwriting_inputs("--out", flags.out, study_inputs(study, storage_url("", study)));
  const GpuContext context = resolve_gpu_context(flags.profile);
  const GpuProfile& profile = context.choice.profile;
  const FittedSpace fit = fit_search_space(study.space, profile);
  const bool cpu = profile.cpu || context.detection.devices.empty();
  const ModelShape shape = worst_case_shape(fit.declared, study.env, !cpu);
  const SlotPlan plan = plan_slots(context.detection.devices, profile, 1, context.cores,
                                   cpu_wants(study.env, study.env_fixed));
  const TrainerProgram trainer = find_trainer(study);
  if (trainer.path.empty()) throw ConfigError(study.path + ": trainer: " + trainer.problem);

  const fs::path dir = fs::absolute(fs::path(study.runs_dir) / study.name / "calibrate");
  std::cerr << "hpo gpu calibrate: study " << study.name << ", profile " << profile.name << ", "
            << shape.model << " hidden_size " << shape.hidden_size << " x " << shape.layers
            << " layers, lookback " << shape.lookback << "; runs in " << dir.string() << "\n";
  std::vector<Measurement> runs;
  for (int64_t batch : batch_choices(fit, shape)) {
    runs.push_back(measure(study, shape, batch, plan.slots.front(), trainer.path, dir, flags, cpu));
    const Measurement& m = runs.back();
    std::cerr << "  batch " << batch << ": "
              << (m.ran ? fixed_number(m.samples_per_s, 2) + " samples/s, peak " +
                              fixed_number(m.peak_mib, 2) + " MiB"
                        : m.problem)
              << "\n";
  }
  const double budget =
      cpu ? host_memory_bytes() / (1024.0 * 1024.0)
          : static_cast<double>(context.detection.devices.front().memory_total_mib);
  const std::optional<int> cpu_slots =
      cpu ? std::optional<int>(
                static_cast<int>(plan_slots(context.detection.devices, profile, std::nullopt,
                                            context.cores, cpu_wants(study.env, study.env_fixed))
                                     .slots.size()))
          : std::nullopt;
  const Calibrated c = judge(runs, budget, flags.margin, cpu_slots);
  const std::string yaml = profile_yaml(flags, context, runs, c);
  if (flags.out.empty()) {
    std::cout << yaml;
  } else {
    write_profile(flags.out, yaml);
    std::cout << "wrote " << flags.out << " (use it with --gpu-profile " << flags.out << ")\n";
  }
  print_estimate(study, fit, runs, c, cpu, std::cout);
  if (c.fit.empty()) {
    std::cerr << "hpo gpu calibrate: no batch size ran within " << flags.margin * 100
              << "% of the memory\n";
    return kExitAllTrialsFailed;
  }
  return kExitOk;
}

}  // namespace

void add_calibrate_command(CLI::App& gpu, int& exit_code) {
  auto flags = std::make_shared<CalibrateFlags>();
  CLI::App* cmd = gpu.add_subcommand(
      "calibrate",
      "Measure the study's trainer on this machine and write a GPU profile from what fits");
  cmd->add_option("--study", flags->study, "Study name (studies/NAME.yaml) or path to a study file")
      ->required();
  cmd->add_option("--gpu-profile", flags->profile,
                  "The profile to start from (default: $GPU_PROFILE, else detected)");
  cmd->add_option("-o,--out", flags->out, "Write the profile here (default: print it)");
  cmd->add_option("--steps", flags->steps, "Timed training steps per batch size")
      ->check(CLI::Range(2, 100000))
      ->default_val(20);
  cmd->add_option("--margin", flags->margin,
                  "Share of the device's (or host's) memory a trial may fill")
      ->check(CLI::Range(0.1, 1.0))
      ->default_val(0.8);
  cmd->footer(
      "For each batch size the study's space allows on the profile, the study's trainer trains\n"
      "the largest model the space holds for two short epochs (the second is timed) and reports\n"
      "its samples/s and peak memory (hpo-trainer: the CUDA allocator's peak on a GPU, the peak\n"
      "RSS on the CPU). The profile written keeps the batch sizes whose peak stays within\n"
      "--margin of the memory, runs floor(margin x memory / peak) trials at once, and lists the\n"
      "measurements; the GPU-hours of one trial and of the study follow. Runs go to\n"
      "RUNS_DIR/STUDY/calibrate.\n\n"
      "Examples:\n"
      "  hpo gpu calibrate --study quick_sweep --out gpu_profiles/my_card.yaml\n"
      "  hpo gpu calibrate --study quick_sweep --gpu-profile cpu --steps 5");
  cmd->callback([flags, &exit_code] { exit_code = calibrate(*flags); });
}

}  // namespace hpo
