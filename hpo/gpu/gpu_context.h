// What `hpo gpu`, `hpo doctor` and `hpo run --n-jobs auto` start from: the
// detected GPUs, the profile chosen for them, and the CPU cores.
#ifndef HPO_GPU_GPU_CONTEXT_H_
#define HPO_GPU_GPU_CONTEXT_H_

#include <string>

#include "hpo/gpu/gpu_detect.h"
#include "hpo/gpu/profile_select.h"

namespace hpo {

struct GpuContext {
  GpuDetection detection;
  ProfileChoice choice;
  int cores = 1;
};

// Detects the GPUs, loads the profiles from gpu_profile_search_dirs() and
// selects one from `profile_flag` (may be empty), $GPU_PROFILE and the
// devices. `cores` > 0 overrides the detected core count. Throws
// ConfigError for a bad profile name or file.
GpuContext resolve_gpu_context(const std::string& profile_flag, int cores = 0);

}  // namespace hpo

#endif  // HPO_GPU_GPU_CONTEXT_H_
