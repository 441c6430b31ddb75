#include "trainer/process_defaults.h"

#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <fstream>

#include "trainer/heap.h"

#ifdef HPO_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace hpo::trainer {

namespace {

// Resets the kernel's VmHWM, which getrusage's ru_maxrss follows
// (proc(5), /proc/PID/clear_refs, Linux >= 4.0); harmless where missing.
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

void reset_peak_gpu_memory() {
// CUDA builds are of torch 2.x (device.h), whose allocator says whether it
// has been set up: before CUDA is first used it has no devices to reset.
#if defined(HPO_TORCH_CUDA) && TORCH_VERSION_MAJOR >= 2
  auto* allocator = c10::cuda::CUDACachingAllocator::get();
  if (!allocator || !allocator->initialized()) return;
  for (int d = 0; d < int(torch::cuda::device_count()); ++d)
    allocator->resetPeakStats(static_cast<c10::DeviceIndex>(d));
#endif
}

}  // namespace

ProcessDefaults process_defaults() { return {at::get_num_threads()}; }

void restore_process_defaults(const ProcessDefaults& defaults) {
  if (at::get_num_threads() != defaults.intra_op_threads)
    at::set_num_threads(defaults.intra_op_threads);
  release_freed_memory();  // first, so that the new peak starts from what is left
  reset_peak_rss();
  reset_peak_gpu_memory();
}

}  // namespace hpo::trainer
