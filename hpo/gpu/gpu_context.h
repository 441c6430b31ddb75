// What `hpo gpu`, `hpo doctor` and `hpo run --n-jobs auto` start from: the
// detected GPUs, the profile chosen for them, and the CPU cores.
#ifndef HPO_GPU_GPU_CONTEXT_H_
#define HPO_GPU_GPU_CONTEXT_H_

#include <string>

#include "hpo/gpu/cpu_cores.h"
#include "hpo/gpu/gpu_detect.h"
#include "hpo/gpu/profile_select.h"

namespace hpo {

struct GpuContext {
  GpuDetection detection;
  ProfileChoice choice;
  int cores = 1;
  std::string cores_reason;  // how `cores` was found: the mask and quota, or --cores
};

// Detects the GPUs, loads the profiles from gpu_profile_search_dirs() and
// selects one from `profile_flag` (may be empty), $GPU_PROFILE and the
// devices. `cores` > 0 overrides the detected core count (the affinity mask
// capped by the cgroup CPU quota, see cpu_cores.h). Throws ConfigError for
// a bad profile name or file, or a cgroup file that cannot be read as one.
GpuContext resolve_gpu_context(const std::string& profile_flag, int cores = 0);

}  // namespace hpo

#endif  // HPO_GPU_GPU_CONTEXT_H_
