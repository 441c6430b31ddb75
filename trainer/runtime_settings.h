// The machine settings the orchestrator passes in the environment (a study's
// `env:`), parsed and validated. Applying them needs LibTorch; see device.h.
#ifndef HPO_TRAINER_RUNTIME_SETTINGS_H_
#define HPO_TRAINER_RUNTIME_SETTINGS_H_

#include <functional>
#include <optional>
#include <string>

namespace hpo::trainer {

// CUDNN_BENCHMARK: 0, 1, or auto (on where the run is long enough to pay for
// the search; device.h).
enum class CudnnBenchmark { kOff, kOn, kAuto };

struct RuntimeSettings {
  int num_workers = 1;  // NUM_WORKERS: batch-building threads (0 = build on the training thread)
  int prefetch_factor = 2;  // PREFETCH_FACTOR: batches in flight per worker
  bool pin_memory = true;  // PIN_MEMORY: page-locked host batches (CUDA only)
  std::string pin_memory_device;  // PIN_MEMORY_DEVICE: logged only
  bool persistent_workers = true;  // PERSISTENT_WORKERS: keep workers between passes
  CudnnBenchmark cudnn_benchmark = CudnnBenchmark::kAuto;  // CUDNN_BENCHMARK
  bool tf32 = true;  // TF32: TF32 matmuls and convolutions (CUDA only)
  std::string amp_dtype = "bf16";  // AMP_DTYPE: bf16 | fp16 | off (CUDA only)
  bool fused_optimizer =
      true;  // FUSED_OPTIMIZER: fused AdamW, multi-tensor clipping (CUDA, torch >= 2.1)
  bool cuda_graphs = true;  // CUDA_GRAPHS: replay each training step as one CUDA graph (CUDA only)
  bool device_features =
      true;  // DEVICE_FEATURES: features kept on the CUDA device, batches gathered there
  // CHANNELS_LAST: the TCN's activations in channels-last layout; unset or
  // auto: on, measured faster on the CPU and on CUDA (device.h).
  std::optional<bool> channels_last;
  // SERIES_SCORING: the TCN's scoring passes share the steps of windows of
  // one name (tcn_scorer.h); unset or auto: where that is less work.
  std::optional<bool> series_scoring;
  std::string device;  // HPO_DEVICE: auto | cpu | cuda, the slot's; replaces the config's auto
  int omp_threads = 0;  // OMP_NUM_THREADS: intra-op threads; 0 = LibTorch's default
  // HPO_GPU_MEMORY_FRACTION: the slot's share of its GPU's memory (hpo sets
  // the profile's), a cap on CUDA's caching allocator; 0 = none.
  double gpu_memory_fraction = 0;
};

using EnvLookup = std::function<const char*(const char*)>;

// Reads the settings through `getenv` (injectable for tests); throws
// UsageError naming the variable on a bad value.
RuntimeSettings read_runtime_settings(const EnvLookup& getenv);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_RUNTIME_SETTINGS_H_
