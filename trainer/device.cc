#include "trainer/device.h"

#include <sys/resource.h>

#include <cstdlib>

#include <ATen/autocast_mode.h>
#include <torch/cuda.h>
#include <torch/version.h>

#ifdef HPO_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace hpo::trainer {

namespace {

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
// torch >= 2.4: autocast state is per device type.
bool cuda_autocast_enabled() { return at::autocast::is_autocast_enabled(at::kCUDA); }
void set_cuda_autocast(bool on) { at::autocast::set_autocast_enabled(at::kCUDA, on); }
void set_cuda_autocast_dtype(at::ScalarType t) { at::autocast::set_autocast_dtype(at::kCUDA, t); }
#else
// torch 1.13 .. 2.3: "enabled" means CUDA autocast.
bool cuda_autocast_enabled() { return at::autocast::is_enabled(); }
void set_cuda_autocast(bool on) { at::autocast::set_enabled(on); }
void set_cuda_autocast_dtype(at::ScalarType t) { at::autocast::set_autocast_gpu_dtype(t); }
#endif

const char* on_off(bool b) { return b ? "on" : "off"; }

}  // namespace

DeviceSetup apply_runtime_settings(const RuntimeSettings& s, const std::string& device, std::ostream& log) {
  DeviceSetup setup;
  const bool has_cuda = torch::cuda::is_available();
  setup.cuda = device == "cuda" || (device == "auto" && has_cuda);
  if (setup.cuda && !has_cuda) throw std::runtime_error("device cuda requested but no CUDA device is available");
  setup.device = setup.cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  log << "setting device=" << device << " -> " << (setup.cuda ? "cuda:0" : "cpu") << "\n";

  if (s.omp_threads > 0) at::set_num_threads(s.omp_threads);
  log << "setting OMP_NUM_THREADS=" << (s.omp_threads > 0 ? std::to_string(s.omp_threads) : "unset")
      << " -> at::set_num_threads, intra-op threads now " << at::get_num_threads() << " (batch workers too)\n";
  log << "setting NUM_WORKERS=" << s.num_workers << " -> " << s.num_workers << " batch-builder threads"
      << (s.num_workers == 0 ? " (batches built on the training thread)" : "") << "\n";
  log << "setting PREFETCH_FACTOR=" << s.prefetch_factor << " -> up to "
      << std::max(1, s.num_workers * s.prefetch_factor) << " batches in flight\n";
  log << "setting PERSISTENT_WORKERS=" << on_off(s.persistent_workers) << " -> workers "
      << (s.persistent_workers ? "kept for the whole run" : "restarted for every pass") << "\n";

  setup.pin_memory = s.pin_memory && setup.cuda;
  log << "setting PIN_MEMORY=" << on_off(s.pin_memory) << " -> "
      << (setup.pin_memory ? "pinned host batches, non-blocking copies, device double buffer"
                           : (s.pin_memory ? "ignored on CPU" : "off"))
      << (s.pin_memory_device.empty() ? "" : " (PIN_MEMORY_DEVICE=" + s.pin_memory_device + " logged only)") << "\n";

  at::globalContext().setBenchmarkCuDNN(s.cudnn_benchmark && setup.cuda);
  log << "setting CUDNN_BENCHMARK=" << on_off(s.cudnn_benchmark) << " -> "
      << (setup.cuda ? on_off(s.cudnn_benchmark) : "ignored on CPU") << "\n";
  at::globalContext().setAllowTF32CuBLAS(s.tf32 && setup.cuda);
  at::globalContext().setAllowTF32CuDNN(s.tf32 && setup.cuda);
  log << "setting TF32=" << on_off(s.tf32) << " -> " << (setup.cuda ? on_off(s.tf32) : "ignored on CPU") << "\n";

  // fp16 autocast needs a GradScaler, which LibTorch does not have; bf16 has
  // fp32's range and needs none.
  setup.amp = setup.cuda && s.amp_dtype != "off";
  setup.amp_dtype = torch::kBFloat16;
  log << "setting AMP_DTYPE=" << s.amp_dtype << " -> "
      << (!setup.cuda ? "ignored on CPU (fp32)"
                      : s.amp_dtype == "off" ? "fp32"
                      : s.amp_dtype == "fp16" ? "bf16 autocast (fp16 needs a GradScaler, which LibTorch lacks)"
                                              : "bf16 autocast")
      << "\n";
  // Read by CUDA and LibTorch themselves; logged so the trial log shows them.
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING", "TORCH_CUDNN_V8_API_ENABLED"}) {
    const char* value = std::getenv(name);
    log << "setting " << name << "=" << (value ? value : "unset") << " -> passed to CUDA/LibTorch"
        << (setup.cuda ? "" : " (no effect on CPU)") << "\n";
  }
  return setup;
}

AutocastScope::AutocastScope(bool enabled, torch::ScalarType dtype) : enabled_(enabled) {
  if (!enabled_) return;
  was_enabled_ = cuda_autocast_enabled();
  set_cuda_autocast_dtype(dtype);
  set_cuda_autocast(true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!enabled_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_cuda_autocast(was_enabled_);
}

void clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> norms;
  for (const torch::Tensor& p : params)
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm(2).to(torch::kFloat32));
  if (norms.empty()) return;
  torch::Tensor total = torch::stack(norms).norm(2);
  torch::Tensor scale = (total + 1e-6).reciprocal().mul(max_norm).clamp_max(1.0);
  for (const torch::Tensor& p : params)
    if (p.grad().defined()) p.grad().mul_(scale.to(p.grad().dtype()));
}

double peak_memory_mb(const DeviceSetup& setup) {
  struct rusage usage = {};
  getrusage(RUSAGE_SELF, &usage);
  double mb = double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
#ifdef HPO_TORCH_CUDA
  if (setup.cuda) {
    auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(setup.device.index());
    mb += double(stats.allocated_bytes[0].peak) / (1024.0 * 1024.0);  // [0]: all pools
  }
#else
  (void)setup;
#endif
  return mb;
}

void synchronize(const DeviceSetup& setup) {
  if (setup.cuda) torch::cuda::synchronize();
}

}  // namespace hpo::trainer
