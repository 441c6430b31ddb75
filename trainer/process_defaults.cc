#include "trainer/process_defaults.h"

#include <torch/cuda.h>
#include <torch/torch.h>

#include <fstream>

#ifdef HPO_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace hpo::trainer {

namespace {

// Resets the kernel's VmHWM, which getrusage's ru_maxrss follows
// (proc(5), /proc/PID/clear_refs, Linux >= 4.0); harmless where missing.
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

void reset_peak_gpu_memory() {
#ifdef HPO_TORCH_CUDA
  // Before CUDA is first used the allocator has no devices to reset.
  if (!c10::cuda::CUDACachingAllocator::get()->initialized()) return;
  for (int d = 0; d < int(torch::cuda::device_count()); ++d)
    c10::cuda::CUDACachingAllocator::resetPeakStats(d);
#endif
}

}  // namespace

ProcessDefaults process_defaults() { return {at::get_num_threads()}; }

void restore_process_defaults(const ProcessDefaults& defaults) {
  if (at::get_num_threads() != defaults.intra_op_threads)
    at::set_num_threads(defaults.intra_op_threads);
  reset_peak_rss();
  reset_peak_gpu_memory();
}

}  // namespace hpo::trainer
