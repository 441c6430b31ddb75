// `hpo gpu`: the GPUs hpo sees, the profile it chose for them and why, and
// the slot plan parallel trials would get.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hpo/cli/at_least.h"
#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/space_view.h"
#include "hpo/cli/study_locator.h"
#include "hpo/gpu/gpu_context.h"
#include "hpo/gpu/slot_plan.h"
#include "hpo/gpu/space_fit.h"
#include "samplers/param_value.h"

namespace hpo {

namespace {

struct GpuFlags {
  std::string study;
  std::string profile;
  std::string n_jobs;  // empty: the study's n_jobs, as hpo run plans; else auto
  int cores = 0;
  bool json = false;
};

std::string env_value(const Slot& slot, const std::string& name) {
  for (const auto& [key, value] : slot.env) {
    if (key == name) return value;
  }
  return "-";
}

template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// "NVIDIA GeForce RTX 4090, 24 GB: 2 trial(s) per GPU, ~6 GB per model, batch_size <= 768"
std::string profile_summary(const GpuProfile& p) {
  std::ostringstream out;
  out << (p.description.empty() ? p.name : p.description) << ": ";
  if (p.cpu) {
    out << p.threads_per_trial.value_or(1) << " thread(s) per trial";
  } else {
    out << short_number(p.vram_gb) << " GB, " << p.max_parallel_trials << " trial(s) per GPU, ~"
        << short_number(p.memory_per_model_gb) << " GB per model";
  }
  if (p.batch_ceiling()) out << ", batch_size <= " << *p.batch_ceiling();
  if (p.hidden_size_max) out << ", hidden_size <= " << *p.hidden_size_max;
  if (p.memory_fraction) out << ", memory fraction " << short_number(*p.memory_fraction);
  return out.str();
}

void print_devices(const GpuDetection& d, std::ostream& out) {
  if (d.tool.empty()) {
    out << "GPUs: none (nvidia-smi not found beside hpo or in PATH)\n";
  } else if (!d.problem.empty()) {
    out << "GPUs: none (" << d.problem << ")\n";
  } else {
    out << "GPUs: " << d.devices.size() << " (" << d.tool << ")\n";
  }
  if (!d.visible_note.empty()) out << "  " << d.visible_note << "\n";
  for (const GpuDevice& g : d.devices) {
    out << "  " << std::left << std::setw(3) << g.index << std::setw(28) << g.name
        << g.memory_total_mib << " MiB";
    if (g.memory_used_mib) out << ", " << *g.memory_used_mib << " MiB used";
    if (g.utilization_pct) out << ", " << short_number(*g.utilization_pct) << "% busy";
    if (!g.uuid.empty()) out << ", " << g.uuid;
    out << "\n";
  }
  for (const std::string& w : d.warnings) out << "warning: " << w << "\n";
}

void print_plan(const SlotPlan& plan, const std::string& n_jobs_from, const GpuContext& c,
                std::ostream& out) {
  out << "slots: " << plan.n_jobs() << " (" << n_jobs_from << "; ";
  if (plan.on_gpu)
    out << plan.gpus << " GPU(s) x " << plan.capacity / std::max(1, plan.gpus) << " = ";
  out << plan.capacity << " allowed), " << c.cores << " CPU core(s), " << plan.threads_per_trial
      << " thread(s) per trial\n";
  out << "  CPU cores: " << c.cores_reason << "\n  OMP_NUM_THREADS: " << plan.threads_reason
      << "\n";
  // MIG ids are long: the column is as wide as the longest.
  size_t id_width = 22;
  for (const Slot& s : plan.slots)
    id_width = std::max(id_width, env_value(s, "CUDA_VISIBLE_DEVICES").size() + 4);
  const int width = static_cast<int>(id_width);
  out << "  " << std::left << std::setw(10) << "slot" << std::setw(5) << "gpu" << std::setw(width)
      << "CUDA_VISIBLE_DEVICES" << std::setw(17) << "OMP_NUM_THREADS" << std::setw(13)
      << "NUM_WORKERS"
      << "HPO_GPU_MEMORY_FRACTION\n";
  for (const Slot& s : plan.slots) {
    out << "  " << std::setw(10) << s.name << std::setw(5) << (s.gpu ? std::to_string(*s.gpu) : "-")
        << std::setw(width) << ("\"" + env_value(s, "CUDA_VISIBLE_DEVICES") + "\"") << std::setw(17)
        << env_value(s, "OMP_NUM_THREADS") << std::setw(13) << env_value(s, "NUM_WORKERS")
        << env_value(s, "HPO_GPU_MEMORY_FRACTION") << "\n";
  }
  for (const std::string& n : plan.fit_notes) out << "note: " << n << "\n";
  for (const std::string& w : plan.warnings) out << "warning: " << w << "\n";
  if (!plan.cpu_warning.empty()) out << "warning: " << plan.cpu_warning << "\n";
}

nlohmann::json profile_json(const ProfileChoice& c) {
  const GpuProfile& p = c.profile;
  nlohmann::json j = {{"name", p.name},
                      {"source", to_string(c.source)},
                      {"reason", c.reason},
                      {"path", p.path},
                      {"description", p.description},
                      {"device", p.cpu ? "cpu" : "gpu"},
                      {"vram_gb", p.vram_gb},
                      {"max_parallel_trials", p.max_parallel_trials},
                      {"memory_per_model_gb", p.memory_per_model_gb},
                      {"batch_size_choices", p.batch_size_choices}};
  j["batch_size_max"] = or_null(p.batch_ceiling());
  j["memory_fraction"] = or_null(p.memory_fraction);
  j["hidden_size_max"] = or_null(p.hidden_size_max);
  return j;
}

nlohmann::json gpu_json(const GpuContext& c, const SlotPlan& plan) {
  nlohmann::json devices = nlohmann::json::array();
  for (const GpuDevice& g : c.detection.devices) {
    devices.push_back({{"index", g.index},
                       {"uuid", g.uuid},
                       {"mig_id", g.is_mig() ? nlohmann::json(g.mig_id) : nlohmann::json(nullptr)},
                       {"name", g.name},
                       {"memory_total_mib", g.memory_total_mib},
                       {"memory_used_mib", or_null(g.memory_used_mib)},
                       {"utilization_pct", or_null(g.utilization_pct)}});
  }
  std::vector<std::string> warnings = c.detection.warnings;
  warnings.insert(warnings.end(), plan.warnings.begin(), plan.warnings.end());
  if (!plan.cpu_warning.empty()) warnings.push_back(plan.cpu_warning);
  nlohmann::json slots = nlohmann::json::array();
  for (const Slot& s : plan.slots) {
    nlohmann::json env = nlohmann::json::object();
    for (const auto& [k, v] : s.env) env[k] = v;
    slots.push_back(
        {{"name", s.name}, {"gpu", or_null(s.gpu)}, {"worker", s.worker}, {"env", env}});
  }
  return {{"nvidia_smi",
           c.detection.tool.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.detection.tool)},
          {"problem", c.detection.problem},
          {"devices", devices},
          {"profile", profile_json(c.choice)},
          {"cores", c.cores},
          {"cores_reason", c.cores_reason},
          {"loader_workers", plan.loader_workers},
          {"threads_reason", plan.threads_reason},
          {"fit_notes", plan.fit_notes},
          {"on_gpu", plan.on_gpu},
          {"capacity", plan.capacity},
          {"n_jobs", plan.n_jobs()},
          {"threads_per_trial", plan.threads_per_trial},
          {"slots", slots},
          {"warnings", warnings}};
}

// The study's space on the chosen profile, with --study only.
void print_space(const FittedSpace& fit, std::ostream& out) {
  out << "space (as trials get it on this profile):\n";
  for (const std::string& line : space_lines(fit)) out << "  " << line << "\n";
}

int show(const GpuFlags& flags) {
  std::optional<StudyConfig> study;
  if (!flags.study.empty()) study = load_study(flags.study);
  // What hpo run would plan: -j, else the study's n_jobs, else auto.
  const std::optional<int> n_jobs =
      planned_n_jobs(flags.n_jobs, study ? std::optional<int>(study->n_jobs) : std::nullopt);
  const std::string n_jobs_from =
      !flags.n_jobs.empty() && n_jobs   ? "--n-jobs " + std::to_string(*n_jobs)
      : !flags.n_jobs.empty() || !study ? "auto"
                                        : "the study's n_jobs " + std::to_string(*n_jobs);
  const CpuWants wants = study ? cpu_wants(study->env, study->env_fixed) : CpuWants{};
  const GpuContext context = resolve_gpu_context(flags.profile, flags.cores);
  const SlotPlan plan =
      plan_slots(context.detection.devices, context.choice.profile, n_jobs, context.cores, wants);
  std::optional<FittedSpace> fit;
  if (study) fit = fit_search_space(study->space, context.choice.profile);
  if (flags.json) {
    nlohmann::json j = gpu_json(context, plan);
    if (fit) j["space"] = space_json(*fit);
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  print_devices(context.detection, std::cout);
  std::cout << "profile: " << context.choice.profile.name << " ("
            << to_string(context.choice.source) << ": " << context.choice.reason << ")\n  "
            << profile_summary(context.choice.profile) << "\n";
  print_plan(plan, n_jobs_from, context, std::cout);
  if (fit) print_space(*fit, std::cout);
  return kExitOk;
}

}  // namespace

void add_gpu_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<GpuFlags>();
  CLI::App* cmd =
      app.add_subcommand("gpu", "Show the GPUs, the GPU profile chosen for them and the slot plan");
  cmd->add_option(
      "--study", flags->study,
      "Plan for this study: fit its NUM_WORKERS to the cores and show its search space on the "
      "profile");
  cmd->add_option(
      "--gpu-profile", flags->profile,
      "Profile name (gpu_profiles/NAME.yaml) or file (default: $GPU_PROFILE, else detected)");
  cmd->add_option("-j,--n-jobs", flags->n_jobs,
                  "Trials at once: a number, or auto for the profile's slots (default: the "
                  "study's n_jobs with --study, as hpo run plans; else auto)");
  cmd->add_option("--cores", flags->cores,
                  "Plan for this many CPU cores (default: the cores hpo may use)")
      ->check(at_least(1));
  cmd->add_flag("--json", flags->json, "Print JSON for scripts instead of tables");
  cmd->footer(
      "GPUs come from `nvidia-smi --query-gpu=...`, narrowed by CUDA_VISIBLE_DEVICES (indices, GPU "
      "UUIDs\n"
      "or their prefixes, MIG instances: a slot of a MIG instance gets its id as given); without "
      "it,\n"
      "trials run on CPU slots. The profile is --gpu-profile, else $GPU_PROFILE, else the one "
      "matching the GPU's\n"
      "name and memory, else `cpu`. Profiles are gpu_profiles/*.yaml in $HPO_GPU_PROFILE_PATH, "
      "./gpu_profiles\n"
      "and hpo's shipped ones. Each slot is one (GPU, worker) pair; its trials get "
      "CUDA_VISIBLE_DEVICES,\n"
      "OMP_NUM_THREADS and NUM_WORKERS fitted to cores / slots (the study's NUM_WORKERS is a "
      "maximum,\nlowered first) and, if the profile sets one, "
      "HPO_GPU_MEMORY_FRACTION. Cores are those of hpo's affinity mask, capped by its cgroup's CPU "
      "quota\n"
      "(cpu.max, or cpu.cfs_quota_us / cpu.cfs_period_us, under $HPO_CGROUP_ROOT or "
      "/sys/fs/cgroup).\n\n"
      "Examples:\n"
      "  hpo gpu\n"
      "  hpo gpu --gpu-profile a100_80gb --n-jobs 4\n"
      "  hpo gpu --study quick_sweep\n"
      "  GPU_PROFILE=my_profiles/l40s.yaml hpo gpu --json");
  add_calibrate_command(*cmd, exit_code);
  cmd->callback([cmd, flags, &exit_code] {
    if (cmd->get_subcommand("calibrate")->parsed()) return;  // its own callback ran
    exit_code = show(*flags);
  });
}

}  // namespace hpo
