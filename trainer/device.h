// Applying the runtime settings to LibTorch, and the pieces of the training
// step that differ between CPU and CUDA (autocast, clipping).
//
// CUDA-only code compiles against both Debian's LibTorch 1.13 (CPU) and the
// LibTorch of torch 2.x wheels; version differences are guarded on
// TORCH_VERSION_MAJOR/MINOR.
#ifndef HPO_TRAINER_DEVICE_H_
#define HPO_TRAINER_DEVICE_H_

#include <torch/torch.h>

#include <future>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "trainer/runtime_settings.h"

namespace hpo::trainer {

struct DeviceSetup {
  torch::Device device = torch::kCPU;
  bool cuda = false;
  bool amp = false;  // bf16 autocast on CUDA
  torch::ScalarType amp_dtype = torch::kBFloat16;
  bool pin_memory = false;
  bool fused_optimizer = false;  // fused AdamW and multi-tensor clipping
  bool cuda_graphs = false;  // training steps replayed as CUDA graphs (graph_step.h)
  bool cudnn_benchmark_auto = false;  // the run decides, by cudnn_benchmark_pays()
  // The TCN's activations channels-last (models.h), by default on both
  // devices: on the CPU oneDNN's kernels scored 1.3x as fast with it (training
  // up to 7%); on an H200 cuDNN trained 1.16x (batch 512) to 1.54x (batch
  // 8192) as fast as with its 3-D convolutions (docs/benchmarks.md).
  bool channels_last = false;
  // Scoring the TCN through TcnScorer (tcn_scorer.h): on the CPU in
  // channels-last. Its windows share their names' series where that is less
  // work (SERIES_SCORING=auto, nullopt), or always or never.
  bool tcn_scorer = false;
  std::optional<bool> series_scoring = false;
};

// CUDNN_BENCHMARK=auto: whether timing cuDNN's algorithms pays over a run of
// `batches` training batches. Measured on an H100 (the TCN at hidden 128,
// batch 4096, bf16): the search cost 2.5 s in each process, the time of about
// 1,100 steps, and made each later step 12% faster, so it pays from about
// 9,000 batches. Both scale with the step's time, so the rule counts batches,
// not seconds. The shipped sweeps train 500 to 2,000 batches a trial there.
constexpr int64_t kCudnnBenchmarkPaysFrom = 9000;
inline bool cudnn_benchmark_pays(int64_t batches) { return batches >= kCudnnBenchmarkPaysFrom; }

// Whether a trial with `device` ("auto" | "cpu" | "cuda") is to train on CUDA:
// device=cuda, or auto on hpo's GPU slot (HPO_DEVICE=cuda). Known before its
// data is loaded.
bool wants_cuda(const RuntimeSettings& settings, const std::string& device);

// Throws the no_cuda UsageError at once when the trial wants CUDA and this
// build is CPU-only: before its data is built, which a CPU build on a GPU
// slot once did for nothing. (A CUDA build learns whether a GPU is there as
// its context starts, beside the data: apply_runtime_settings says so.)
void refuse_cuda_this_build_lacks(const RuntimeSettings& settings, const std::string& device);

// When wants_cuda: starts CUDA's context on cuda:0 on a thread of its own, and
// once per process runs a first convolution and matrix product there (bf16
// unless AMP is off), so that CUDA's start overlaps the data's load, with the
// card idle either way: the context (0.2 s on an H200), and what a first call
// loads (CUDA's kernels, cuDNN's engines, cuBLAS's handle), part of the 0.8 s
// an H100 took over a fresh process's first three training steps. How much of
// that it saves is not yet measured. Otherwise an empty future. It throws nothing:
// apply_runtime_settings reports a CUDA that cannot start. Wait for it before
// training, so that its kernels never run beside a CUDA graph's capture.
std::future<void> start_cuda_early(const RuntimeSettings& settings, const std::string& device);

// Picks the device ("auto" | "cpu" | "cuda"), applies threads, cuDNN, TF32 and
// AMP settings, and logs each one as it was applied.
DeviceSetup apply_runtime_settings(const RuntimeSettings& settings, const std::string& device,
                                   std::ostream& log);

// Autocast for the forward pass while alive (a no-op when disabled).
class AutocastScope {
 public:
  AutocastScope(bool enabled, torch::ScalarType dtype);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool enabled_;
  bool was_enabled_ = false;
};

// cuDNN's benchmark off while alive, for a batch whose shape comes once per
// pass (the last, partial batch of an epoch; a scored window pads its own to
// full size instead, trainer.cc): timing
// every algorithm for a shape used once costs more than the fastest one
// saves, and each such shape paid it in every trial's first epoch.
class OneOffShape {
 public:
  explicit OneOffShape(bool one_off);
  ~OneOffShape();
  OneOffShape(const OneOffShape&) = delete;
  OneOffShape& operator=(const OneOffShape&) = delete;

 private:
  bool restore_ = false;
};

// Scales gradients so their global L2 norm is at most max_norm. Everything
// stays on the device: no .item(), so no CPU-GPU sync per step. On CUDA with
// torch >= 2.1 (and `multi_tensor`) it takes a handful of multi-tensor
// kernels instead of a few per parameter.
void clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm,
                    bool multi_tensor = false);

// True where fused_adamw_step can run: CUDA, and a LibTorch (torch >= 2.1)
// with the fused multi-tensor AdamW kernel.
bool fused_adamw_available(const DeviceSetup& setup);

// One AdamW step for every parameter with a gradient, in one fused kernel
// instead of about ten per parameter. It updates `optimizer`'s own state
// (step, exp_avg, exp_avg_sq), so checkpoints and --resume are the same as
// with optimizer.step(), which it falls back to where unavailable or with
// amsgrad.
void fused_adamw_step(torch::optim::AdamW& optimizer, const DeviceSetup& setup);

// For training steps that are captured in a CUDA graph (graph_step.h), where
// nothing may allocate a parameter's state or gradient, read a host value or
// synchronize. Available where fused_adamw_available() and the LibTorch has
// the fused kernel that reads its learning rate from a device tensor
// (torch >= 2.4); elsewhere the first two throw std::logic_error.
//
// prepare_adamw_state creates up front what optimizer.step() creates lazily
// (each parameter's exp_avg and exp_avg_sq) and gives every parameter a zeroed
// gradient, which backward() then accumulates into in place. Returns the
// optimizer's step count so far (nonzero after a resume).
int64_t prepare_adamw_state(torch::optim::AdamW& optimizer);
// One AdamW step in one fused kernel: the step count is `step_count` (a
// device float scalar, incremented here), the learning rate `lr` (a device
// float scalar); the gradients are zeroed in place afterwards.
void adamw_step_in_place(torch::optim::AdamW& optimizer, const torch::Tensor& lr,
                         const torch::Tensor& step_count);
// Adds one to the host copy of each parameter's step count, which checkpoints
// save (adamw_step_in_place only advances the device's).
void count_adamw_step(torch::optim::AdamW& optimizer);

// The peak resident memory of the process (and of the CUDA allocator, when on
// CUDA), in MiB.
double peak_memory_mb(const DeviceSetup& setup);

// The CUDA caching allocator's peak on the training device, in MiB (what the
// GPU had to hold); 0 on the CPU.
double peak_gpu_memory_mb(const DeviceSetup& setup);

// Waits for queued device work (timing on CUDA); a no-op on CPU.
void synchronize(const DeviceSetup& setup);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_DEVICE_H_
