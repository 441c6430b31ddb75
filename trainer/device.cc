#include "trainer/device.h"

#include <ATen/autocast_mode.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <type_traits>

#include "trainer/error.h"
#include "trainer/graph_step.h"

#ifdef HPO_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

// Multi-tensor kernels: fused AdamW (torch >= 2.0) and _foreach_mul_ by a
// tensor (torch >= 2.1).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#define HPO_MULTI_TENSOR_OPTIM 1
#endif
// The fused AdamW kernel with the learning rate in a device tensor, which a
// CUDA graph can replay with a new rate (torch >= 2.4).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define HPO_TENSOR_LR_ADAMW 1
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

// Caps CUDA's caching allocator on the trial's device at `fraction` of its
// memory; says what it did.
std::string cap_gpu_memory([[maybe_unused]] double fraction) {
#ifdef HPO_TORCH_CUDA
  // The allocator knows its devices once CUDA is initialized, which the
  // first CUDA tensor does (the cap would otherwise find none to cap).
  torch::empty({1}, torch::TensorOptions().device(torch::kCUDA, 0));
  c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, 0);
  return "CUDA's caching allocator capped at that share of cuda:0's memory";
#else
  return "not applied: this LibTorch has no CUDA";
#endif
}

// Why CUDA cannot be used, after the marker hpo looks for (hpo/run/no_cuda.h).
std::string no_cuda_reason(const std::string& asked) {
#ifdef HPO_TORCH_CUDA
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return "no_cuda: " + asked +
         ", but this CUDA build of hpo-trainer sees no GPU (CUDA_VISIBLE_DEVICES=" +
         (visible ? std::string("'") + visible + "'" : std::string("unset")) + ")";
#else
  return "no_cuda: " + asked + ", but this hpo-trainer was built against a CPU-only LibTorch (" +
         TORCH_VERSION +
         "); build it against a CUDA LibTorch (docs/hpo-trainer.md, Building against CUDA; "
         "tools/setup.sh does when python3 has a CUDA torch)";
#endif
}

// hpo's slot decides where `auto` trains: a GPU slot must not fall back to
// the CPU unnoticed.
bool from_slot(const RuntimeSettings& s, const std::string& device) {
  return device == "auto" && !s.device.empty() && s.device != "auto";
}

// A first convolution and matrix product, forward and backward, on tiny
// tensors. On an H100 a fresh process's first three training steps took
// 0.8 s with the card idle (docs/benchmarks.md). Part of that is what a first
// call loads (CUDA's kernels under CUDA_MODULE_LOADING=LAZY, cuDNN's engine
// libraries, cuBLAS's handle), and made here it overlaps the data's load; how
// much it saves is not yet measured. The handles go back to LibTorch's pools
// when this thread ends, for the training thread to reuse.
void warm_cuda_libraries(bool bf16) {
  const auto on_cuda = torch::TensorOptions().device(torch::kCUDA, 0);
  AutocastScope autocast(bf16, torch::kBFloat16);
  const torch::Tensor x =
      torch::randn({4, 8, 1, 32}, on_cuda).contiguous(at::MemoryFormat::ChannelsLast);
  const torch::Tensor w = torch::randn({8, 8, 1, 3}, on_cuda.requires_grad(true));
  const torch::Tensor a = torch::randn({64, 32}, on_cuda.requires_grad(true));
  const torch::Tensor b = torch::randn({32, 16}, on_cuda);
  const torch::Tensor loss = torch::conv2d(x, w).to(torch::kFloat).square().mean() +
                             torch::matmul(a, b).to(torch::kFloat).square().mean();
  loss.backward();
  torch::cuda::synchronize();
}

}  // namespace

// What asked for CUDA, for a no_cuda reason.
std::string cuda_asked_by(const RuntimeSettings& s, const std::string& device) {
  return from_slot(s, device) ? "HPO_DEVICE=cuda (hpo's GPU slot)" : "device=cuda";
}

bool wants_cuda(const RuntimeSettings& s, const std::string& device) {
  return (from_slot(s, device) ? s.device : device) == "cuda";
}

void refuse_cuda_this_build_lacks(const RuntimeSettings& s, const std::string& device) {
#ifndef HPO_TORCH_CUDA
  if (wants_cuda(s, device)) throw UsageError(no_cuda_reason(cuda_asked_by(s, device)));
#else
  (void)s;
  (void)device;
#endif
}

std::future<void> start_cuda_early(const RuntimeSettings& s, const std::string& device) {
  if (!wants_cuda(s, device)) return {};
  const bool bf16 = s.amp_dtype != "off";
  return std::async(std::launch::async, [bf16] {
    try {
      if (!torch::cuda::is_available()) return;
      torch::empty({1}, torch::TensorOptions().device(torch::kCUDA, 0));
      static std::once_flag warmed;  // a server's later trials find the libraries loaded
      std::call_once(warmed, [bf16] { warm_cuda_libraries(bf16); });
    } catch (const std::exception&) {  // apply_runtime_settings says why, on the trial's thread
    }
  });
}

DeviceSetup apply_runtime_settings(const RuntimeSettings& s, const std::string& device,
                                   std::ostream& log) {
  DeviceSetup setup;
  const bool has_cuda = torch::cuda::is_available();
  const bool slot = from_slot(s, device);
  setup.cuda = wants_cuda(s, device) || (device == "auto" && !slot && has_cuda);
  if (setup.cuda && !has_cuda) throw UsageError(no_cuda_reason(cuda_asked_by(s, device)));
  setup.device = setup.cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  log << "setting device=" << device << (slot ? " with HPO_DEVICE=" + s.device : "") << " -> "
      << (setup.cuda ? "cuda:0" : "cpu") << "\n";

  if (s.omp_threads > 0) at::set_num_threads(s.omp_threads);
  log << "setting OMP_NUM_THREADS=" << (s.omp_threads > 0 ? std::to_string(s.omp_threads) : "unset")
      << " -> at::set_num_threads, intra-op threads now " << at::get_num_threads()
      << " (batch workers too)\n";
  log << "setting NUM_WORKERS=" << s.num_workers << " -> " << s.num_workers
      << " batch-builder threads"
      << (s.num_workers == 0 ? " (batches built on the training thread)" : "") << "\n";
  log << "setting PREFETCH_FACTOR=" << s.prefetch_factor << " -> up to "
      << std::max(1, s.num_workers * s.prefetch_factor) << " batches in flight\n";
  log << "setting PERSISTENT_WORKERS=" << on_off(s.persistent_workers) << " -> workers "
      << (s.persistent_workers ? "kept for the whole run" : "restarted for every pass") << "\n";

  setup.pin_memory = s.pin_memory && setup.cuda;
  log << "setting PIN_MEMORY=" << on_off(s.pin_memory) << " -> "
      << (setup.pin_memory ? "pinned host batches, non-blocking copies, device double buffer"
                           : (s.pin_memory ? "ignored on CPU" : "off"))
      << (s.pin_memory_device.empty()
              ? ""
              : " (PIN_MEMORY_DEVICE=" + s.pin_memory_device + " logged only)")
      << "\n";

  const bool benchmark = s.cudnn_benchmark == CudnnBenchmark::kOn;
  setup.cudnn_benchmark_auto = setup.cuda && s.cudnn_benchmark == CudnnBenchmark::kAuto;
  at::globalContext().setBenchmarkCuDNN(benchmark && setup.cuda);
  log << "setting CUDNN_BENCHMARK="
      << (s.cudnn_benchmark == CudnnBenchmark::kAuto ? "auto" : on_off(benchmark)) << " -> "
      << (!setup.cuda                  ? "ignored on CPU"
          : setup.cudnn_benchmark_auto ? "decided once the run's length is known"
                                       : on_off(benchmark))
      << "\n";
  at::globalContext().setAllowTF32CuBLAS(s.tf32 && setup.cuda);
  at::globalContext().setAllowTF32CuDNN(s.tf32 && setup.cuda);
  log << "setting TF32=" << on_off(s.tf32) << " -> "
      << (setup.cuda ? on_off(s.tf32) : "ignored on CPU") << "\n";

  // fp16 autocast needs a GradScaler, which LibTorch does not have; bf16 has
  // fp32's range and needs none.
  setup.amp = setup.cuda && s.amp_dtype != "off";
  setup.amp_dtype = torch::kBFloat16;
  log << "setting AMP_DTYPE=" << s.amp_dtype << " -> "
      << (!setup.cuda             ? "ignored on CPU (fp32)"
          : s.amp_dtype == "off"  ? "fp32"
          : s.amp_dtype == "fp16" ? "bf16 autocast (fp16 needs a GradScaler, which LibTorch lacks)"
                                  : "bf16 autocast")
      << "\n";
  setup.fused_optimizer = s.fused_optimizer && fused_adamw_available(setup);
  log << "setting FUSED_OPTIMIZER=" << on_off(s.fused_optimizer) << " -> "
      << (setup.fused_optimizer ? "fused AdamW kernel, multi-tensor gradient clipping"
          : !s.fused_optimizer  ? "off (AdamW per parameter)"
          : setup.cuda ? "unavailable in this LibTorch (needs torch >= 2.1): AdamW per parameter"
                       : "ignored on CPU")
      << "\n";
  setup.cuda_graphs =
      s.cuda_graphs && setup.cuda && setup.fused_optimizer && GraphStep::available();
  log << "setting CUDA_GRAPHS=" << on_off(s.cuda_graphs) << " -> "
      << (setup.cuda_graphs        ? "each full training step replayed as one CUDA graph, after "
                                     "warm-up steps; a partial last batch runs eagerly"
          : !s.cuda_graphs         ? "off (kernels launched one by one)"
          : !setup.cuda            ? "ignored on CPU"
          : !setup.fused_optimizer ? "off: needs FUSED_OPTIMIZER=1"
                                   : "unavailable in this LibTorch (needs CUDA torch >= 2.4): "
                                     "kernels launched one by one")
      << "\n";
  setup.channels_last = s.channels_last.value_or(true);
  log << "setting CHANNELS_LAST=" << (s.channels_last ? on_off(*s.channels_last) : "auto")
      << " -> TCN activations "
      << (setup.channels_last ? "channels-last (2-D convolutions over one row)"
                              : "[batch, channels, time] (1-D convolutions)")
      << "\n";
  setup.tcn_scorer = !setup.cuda && setup.channels_last;
  setup.series_scoring = setup.tcn_scorer ? s.series_scoring : std::optional<bool>(false);
  log << "setting SERIES_SCORING=" << (s.series_scoring ? on_off(*s.series_scoring) : "auto")
      << " -> "
      << (!setup.tcn_scorer       ? "off: needs the CPU and CHANNELS_LAST"
          : !setup.series_scoring ? "the TCN's scored windows of a name share their series' "
                                    "steps where that is less work"
          : *setup.series_scoring ? "the TCN's scored windows of a name share their series' steps"
                                  : "off (each window scored alone)")
      << "\n";
  // Several slots share a GPU: each trial's allocator keeps to its slot's
  // share, and a served trainer's cache, kept between trials, stays within
  // it too.
  log << "setting HPO_GPU_MEMORY_FRACTION="
      << (s.gpu_memory_fraction > 0 ? fmt::format("{:g}", s.gpu_memory_fraction) : "unset")
      << " -> "
      << (!setup.cuda                  ? "ignored on CPU"
          : s.gpu_memory_fraction == 0 ? "no cap"
                                       : cap_gpu_memory(s.gpu_memory_fraction))
      << "\n";
  // Read by CUDA and LibTorch themselves; logged so the trial log shows them.
  for (const char* name :
       {"CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING", "TORCH_CUDNN_V8_API_ENABLED"}) {
    const char* value = std::getenv(name);
    log << "setting " << name << "=" << (value ? value : "unset") << " -> passed to CUDA/LibTorch"
        << (setup.cuda ? "" : " (no effect on CPU)") << "\n";
  }
  return setup;
}

OneOffShape::OneOffShape(bool one_off) : restore_(one_off && at::globalContext().benchmarkCuDNN()) {
  if (restore_) at::globalContext().setBenchmarkCuDNN(false);
}

OneOffShape::~OneOffShape() {
  if (restore_) at::globalContext().setBenchmarkCuDNN(true);
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

void clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm, bool multi_tensor) {
  torch::NoGradGuard no_grad;
#ifdef HPO_MULTI_TENSOR_OPTIM
  if (multi_tensor) {
    std::vector<torch::Tensor> grads;
    for (const torch::Tensor& p : params)
      if (p.grad().defined()) grads.push_back(p.grad());
    if (grads.empty()) return;
    std::vector<torch::Tensor> norms = at::_foreach_norm(grads, 2);
    torch::Tensor total = torch::stack(norms).to(torch::kFloat32).norm(2);
    torch::Tensor scale = (total + 1e-6).reciprocal().mul(max_norm).clamp_max(1.0);
    at::_foreach_mul_(grads, scale);
    return;
  }
#else
  (void)multi_tensor;
#endif
  std::vector<torch::Tensor> norms;
  for (const torch::Tensor& p : params)
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm(2).to(torch::kFloat32));
  if (norms.empty()) return;
  torch::Tensor total = torch::stack(norms).norm(2);
  torch::Tensor scale = (total + 1e-6).reciprocal().mul(max_norm).clamp_max(1.0);
  for (const torch::Tensor& p : params)
    if (p.grad().defined()) p.grad().mul_(scale.to(p.grad().dtype()));
}

namespace {

// The optimizer's state is keyed by the parameter's TensorImpl: as a pointer
// since torch 2.x, as its printed address (c10::guts::to_string) in 1.13.
template <typename Key>
Key state_key(const torch::Tensor& p) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream os;
    os << p.unsafeGetTensorImpl();
    return os.str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}

}  // namespace

bool fused_adamw_available(const DeviceSetup& setup) {
#ifdef HPO_MULTI_TENSOR_OPTIM
  return setup.cuda;
#else
  (void)setup;
  return false;
#endif
}

namespace {

// A parameter's AdamW state, created as optimizer.step() creates it when
// missing (step 0, zeroed moments).
template <typename State>
torch::optim::AdamWParamState& adamw_state(State& state, const torch::Tensor& p) {
  using Key = typename std::decay_t<State>::key_type;
  const Key key = state_key<Key>(p);
  auto it = state.find(key);
  if (it == state.end()) {
    auto fresh = std::make_unique<torch::optim::AdamWParamState>();
    fresh->step(0);
    fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    state[key] = std::move(fresh);
    it = state.find(key);
  }
  return static_cast<torch::optim::AdamWParamState&>(*it->second);
}

#ifdef HPO_MULTI_TENSOR_OPTIM
// One group's tensors, as the fused kernels take them.
struct AdamWLists {
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
};

AdamWLists adamw_lists(torch::optim::AdamW& optimizer, torch::optim::OptimizerParamGroup& group) {
  AdamWLists lists;
  for (auto& p : group.params()) {
    if (!p.grad().defined()) continue;
    auto& s = adamw_state(optimizer.state(), p);
    lists.params.push_back(p);
    lists.grads.push_back(p.grad());
    lists.exp_avgs.push_back(s.exp_avg());
    lists.exp_avg_sqs.push_back(s.exp_avg_sq());
  }
  return lists;
}

bool uses_amsgrad(torch::optim::AdamW& optimizer) {
  for (auto& group : optimizer.param_groups())
    if (static_cast<torch::optim::AdamWOptions&>(group.options()).amsgrad()) return true;
  return false;
}
#endif

}  // namespace

void fused_adamw_step(torch::optim::AdamW& optimizer, const DeviceSetup& setup) {
#ifdef HPO_MULTI_TENSOR_OPTIM
  if (!fused_adamw_available(setup) || uses_amsgrad(optimizer)) {
    optimizer.step();
    return;
  }
  torch::NoGradGuard no_grad;
  for (auto& group : optimizer.param_groups()) {
    auto& options = static_cast<torch::optim::AdamWOptions&>(group.options());
    AdamWLists lists = adamw_lists(optimizer, group);
    if (lists.params.empty()) continue;
    int64_t step = 0;
    for (const torch::Tensor& p : lists.params) {
      auto& s = adamw_state(optimizer.state(), p);
      s.step(s.step() + 1);
      step = std::max(step, s.step());
    }
    // The kernel reads each parameter's step count from a device tensor; they
    // all step together, so one scalar serves them all (written, not synced).
    torch::Tensor step_count = torch::full(
        {}, double(step), torch::TensorOptions().dtype(torch::kFloat32).device(setup.device));
    std::vector<torch::Tensor> steps(lists.params.size(), step_count);
    at::_fused_adamw_(lists.params, lists.grads, lists.exp_avgs, lists.exp_avg_sqs,
                      at::TensorList(), steps, options.lr(), std::get<0>(options.betas()),
                      std::get<1>(options.betas()), options.weight_decay(), options.eps(),
                      /*amsgrad=*/false, /*maximize=*/false);
  }
#else
  (void)setup;
  optimizer.step();
#endif
}

int64_t prepare_adamw_state(torch::optim::AdamW& optimizer) {
#ifdef HPO_TENSOR_LR_ADAMW
  if (uses_amsgrad(optimizer)) throw std::logic_error("prepare_adamw_state: amsgrad is not fused");
  torch::NoGradGuard no_grad;
  int64_t step = 0;
  for (auto& group : optimizer.param_groups())
    for (auto& p : group.params()) {
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      step = std::max(step, adamw_state(optimizer.state(), p).step());
    }
  return step;
#else
  (void)optimizer;
  throw std::logic_error("prepare_adamw_state: this LibTorch has no tensor-lr fused AdamW");
#endif
}

void adamw_step_in_place(torch::optim::AdamW& optimizer, const torch::Tensor& lr,
                         const torch::Tensor& step_count) {
#ifdef HPO_TENSOR_LR_ADAMW
  torch::NoGradGuard no_grad;
  step_count.add_(1);
  for (auto& group : optimizer.param_groups()) {
    auto& options = static_cast<torch::optim::AdamWOptions&>(group.options());
    AdamWLists lists = adamw_lists(optimizer, group);
    if (lists.params.empty()) continue;
    std::vector<torch::Tensor> steps(lists.params.size(), step_count);
    at::_fused_adamw_(lists.params, lists.grads, lists.exp_avgs, lists.exp_avg_sqs,
                      at::TensorList(), steps, lr, std::get<0>(options.betas()),
                      std::get<1>(options.betas()), options.weight_decay(), options.eps(),
                      /*amsgrad=*/false, /*maximize=*/false);
    at::_foreach_zero_(lists.grads);
  }
#else
  (void)optimizer;
  (void)lr;
  (void)step_count;
  throw std::logic_error("adamw_step_in_place: this LibTorch has no tensor-lr fused AdamW");
#endif
}

void count_adamw_step(torch::optim::AdamW& optimizer) {
  for (auto& group : optimizer.param_groups())
    for (auto& p : group.params()) {
      auto& s = adamw_state(optimizer.state(), p);
      s.step(s.step() + 1);
    }
}

double peak_memory_mb(const DeviceSetup& setup) {
  struct rusage usage = {};
  getrusage(RUSAGE_SELF, &usage);
  // ru_maxrss is in KiB on Linux; the device's peak is 0 on the CPU.
  return double(usage.ru_maxrss) / 1024.0 + peak_gpu_memory_mb(setup);
}

double peak_gpu_memory_mb(const DeviceSetup& setup) {
#ifdef HPO_TORCH_CUDA
  if (setup.cuda) {
    auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(setup.device.index());
    return double(stats.allocated_bytes[0].peak) / (1024.0 * 1024.0);  // [0]: all pools
  }
#else
  (void)setup;
#endif
  return 0;
}

void synchronize(const DeviceSetup& setup) {
  if (setup.cuda) torch::cuda::synchronize();
}

}  // namespace hpo::trainer
