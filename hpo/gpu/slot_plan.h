// The slot plan: where each concurrent trial runs. With GPUs, one slot per
// (GPU, worker index), up to the profile's max_parallel_trials per GPU;
// without, CPU slots. Each slot carries the environment its trials get, so
// that two trials never share more than the profile allows and the CPU
// cores are split between them instead of oversubscribed.
//
// Pure: the devices, the profile and the core count come in as values.
#ifndef HPO_GPU_SLOT_PLAN_H_
#define HPO_GPU_SLOT_PLAN_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hpo/gpu/cpu_fit.h"
#include "hpo/gpu/gpu_device.h"
#include "hpo/gpu/gpu_profile.h"

namespace hpo {

struct Slot {
  std::string name;  // "gpu1.w0", "mig0.w0" (a MIG instance), "cpu.w3"
  std::optional<int> gpu;  // nvidia-smi index (a MIG instance's GPU); none for a CPU slot
  int worker = 0;  // index among the slots of the same GPU (or of the CPU)
  // Set for every trial in this slot, on top of the study's env (so it wins):
  //   CUDA_VISIBLE_DEVICES  the slot's GPU: its index, or a MIG instance's id
  //                         as the user gave it ("" for CPU slots: no GPU at all)
  //   CUDA_DEVICE_ORDER     PCI_BUS_ID, so CUDA numbers GPUs as nvidia-smi does
  //   OMP_NUM_THREADS       the fitted compute threads (cpu_fit.h)
  //   NUM_WORKERS           the fitted data-loader workers, when the study sets NUM_WORKERS
  //   HPO_GPU_MEMORY_FRACTION  the profile's memory_fraction, when it has one
  //   HPO_SLOT              the slot's name, for the trainer's logs
  std::vector<std::pair<std::string, std::string>> env;
};

struct SlotPlan {
  std::vector<Slot> slots;  // GPU by GPU, worker by worker
  int gpus = 0;  // GPUs in use
  int capacity = 0;  // slots the profile allows (gpus x max_parallel_trials; CPU: see plan_slots)
  int threads_per_trial = 1;
  int loader_workers = 0;  // each trial's data-loader workers (NUM_WORKERS), as fitted
  std::string threads_reason;  // "16 core(s) / 4 trial(s) = 4, minus 2 data-loader worker(s)
                               // (NUM_WORKERS) = 2"
  bool on_gpu = false;
  std::vector<std::string> warnings;  // oversubscription and fallbacks, for the user
  std::vector<std::string> fit_notes;  // what the CPU fit lowered from the study's env
  std::string cpu_warning;  // set when the values env_fixed pins oversubscribe the CPU

  int n_jobs() const { return static_cast<int>(slots.size()); }
};

// `n_jobs`: a number of concurrent trials, or nullopt for auto.
//
// GPU profile and devices: auto gives gpus x max_parallel_trials slots. A
// smaller number fills worker 0 of every GPU before any worker 1. A larger
// one is honoured with a warning (the user may know the model is smaller
// than the profile assumes): extra slots go round the GPUs again.
//
// CPU profile, or no devices: auto gives max(1, cores / threads_per_trial)
// slots (threads_per_trial from the profile, else 1), capped by the
// profile's max_parallel_trials when set. More trials than cores warns.
//
// Either way each trial's compute threads (OMP_NUM_THREADS) and data-loader
// workers (NUM_WORKERS) are fitted to its share of the cores, as cpu_fit.h
// says; the values env_fixed pins are kept, with a warning if they do not
// fit.
SlotPlan plan_slots(const std::vector<GpuDevice>& devices, const GpuProfile& profile,
                    std::optional<int> n_jobs, int cores, const CpuWants& wants = {});

// "auto" -> nullopt, "4" -> 4; anything else throws ConfigError.
std::optional<int> parse_n_jobs(const std::string& text);

// The trials at once hpo run plans: -j's `flag` when given, else the
// study's n_jobs, else (no study) auto. hpo run, doctor and gpu all ask this.
std::optional<int> planned_n_jobs(const std::string& flag, std::optional<int> study_n_jobs);

}  // namespace hpo

#endif  // HPO_GPU_SLOT_PLAN_H_
