#include "hpo/gpu/slot_plan.h"

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "hpo/config/config_error.h"
#include "hpo/config/study_config.h"
#include "samplers/param_value.h"

namespace hpo {

namespace {

std::string fraction_text(double f) { return short_number(f); }

// The cores split between the trials: see cpu_fit.h.
void split_cores(int cores, int trials, const CpuWants& wants, const GpuProfile& profile,
                 SlotPlan& plan) {
  const CpuFit fit = fit_cpu(cores, trials, wants, profile.threads_per_trial.value_or(1));
  plan.threads_per_trial = fit.threads;
  plan.loader_workers = fit.workers;
  plan.threads_reason = fit.reason;
  plan.fit_notes = fit.notes;
  plan.cpu_warning = fit.warning;
}

// Trials get the fitted values over the study's: NUM_WORKERS only when the
// study sets it (a trainer's own default is not hpo's to change).
void add_cpu_env(Slot& slot, const CpuWants& wants, const SlotPlan& plan) {
  slot.env.emplace_back("OMP_NUM_THREADS", std::to_string(plan.threads_per_trial));
  if (wants.workers) slot.env.emplace_back("NUM_WORKERS", std::to_string(plan.loader_workers));
}

// `position`: the device's place in the list, which tells the MIG
// instances of one GPU apart ("mig0.w0", "mig1.w0").
Slot gpu_slot(const GpuDevice& device, size_t position, int worker, const CpuWants& wants,
              const GpuProfile& profile, const SlotPlan& plan) {
  Slot s;
  s.name =
      (device.is_mig() ? "mig" + std::to_string(position) : "gpu" + std::to_string(device.index)) +
      ".w" + std::to_string(worker);
  s.gpu = device.index;
  s.worker = worker;
  // The trainer must use that GPU: a trainer that cannot says no_cuda and the
  // run stops (hpo/run/no_cuda.h), rather than trains on the CPU.
  s.env = {{"CUDA_VISIBLE_DEVICES", device.visible_id()},
           {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
           {"HPO_DEVICE", "cuda"}};
  add_cpu_env(s, wants, plan);
  if (profile.memory_fraction)
    s.env.emplace_back("HPO_GPU_MEMORY_FRACTION", fraction_text(*profile.memory_fraction));
  s.env.emplace_back("HPO_SLOT", s.name);
  return s;
}

Slot cpu_slot(int worker, const CpuWants& wants, const SlotPlan& plan) {
  Slot s;
  s.name = "cpu.w" + std::to_string(worker);
  s.worker = worker;
  s.env = {{"CUDA_VISIBLE_DEVICES", ""}, {"HPO_DEVICE", "cpu"}};
  add_cpu_env(s, wants, plan);
  s.env.emplace_back("HPO_SLOT", s.name);
  return s;
}

void plan_gpu(const std::vector<GpuDevice>& devices, const GpuProfile& profile,
              std::optional<int> n_jobs, int cores, const CpuWants& wants, SlotPlan& plan) {
  plan.on_gpu = true;
  plan.gpus = static_cast<int>(devices.size());
  plan.capacity = plan.gpus * profile.max_parallel_trials;
  const int n = n_jobs.value_or(plan.capacity);
  if (n > plan.capacity) {
    plan.warnings.push_back(std::to_string(n) + " trials at once exceed the " +
                            std::to_string(plan.capacity) + " slots of profile " + profile.name +
                            " (" + std::to_string(plan.gpus) + " GPU(s) x " +
                            std::to_string(profile.max_parallel_trials) +
                            "): GPUs are oversubscribed and trials may run out of memory");
  }
  split_cores(cores, n, wants, profile, plan);
  // Slot k is worker k / gpus of GPU k % gpus: every GPU gets a trial
  // before any gets a second.
  std::vector<std::pair<size_t, int>> chosen;  // (device position, worker)
  for (int k = 0; k < n; ++k)
    chosen.emplace_back(static_cast<size_t>(k % plan.gpus), k / plan.gpus);
  std::sort(chosen.begin(), chosen.end());
  for (const auto& [device, worker] : chosen) {
    plan.slots.push_back(gpu_slot(devices[device], device, worker, wants, profile, plan));
  }
}

void plan_cpu(const GpuProfile& profile, std::optional<int> n_jobs, int cores,
              const CpuWants& wants, SlotPlan& plan) {
  const int wanted_threads = profile.threads_per_trial.value_or(1);
  plan.capacity = std::max(1, cores / wanted_threads);
  // A GPU profile's max_parallel_trials counts per GPU: no cap for the CPU.
  if (profile.cpu && profile.max_parallel_trials > 0) {
    plan.capacity = std::min(plan.capacity, profile.max_parallel_trials);
  }
  const int n = n_jobs.value_or(plan.capacity);
  if (n > cores) {
    plan.warnings.push_back(std::to_string(n) + " trials at once on " + std::to_string(cores) +
                            " CPU core(s): the CPU is oversubscribed");
  }
  split_cores(cores, n, wants, profile, plan);
  for (int w = 0; w < n; ++w) plan.slots.push_back(cpu_slot(w, wants, plan));
}

}  // namespace

SlotPlan plan_slots(const std::vector<GpuDevice>& devices, const GpuProfile& profile,
                    std::optional<int> n_jobs, int cores, const CpuWants& wants) {
  SlotPlan plan;
  cores = std::max(1, cores);
  if (n_jobs && *n_jobs < 1) throw ConfigError("n_jobs: expected an integer >= 1 or 'auto'");
  if (!profile.cpu && !devices.empty()) {
    plan_gpu(devices, profile, n_jobs, cores, wants, plan);
    return plan;
  }
  if (!profile.cpu) {
    plan.warnings.push_back("profile " + profile.name +
                            " is for GPUs, but none was found: trials run on CPU slots");
  }
  plan_cpu(profile, n_jobs, cores, wants, plan);
  return plan;
}

std::optional<int> planned_n_jobs(const std::string& flag, std::optional<int> study_n_jobs) {
  return flag.empty() ? study_n_jobs : parse_n_jobs(flag);
}

std::optional<int> parse_n_jobs(const std::string& text) {
  if (text == "auto") return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1 || value > kMaxJobs) {
    throw ConfigError("--n-jobs: expected an integer from 1 to " + std::to_string(kMaxJobs) +
                      " (trials at once on one host), or 'auto', got '" + text + "'");
  }
  return static_cast<int>(value);
}

}  // namespace hpo
