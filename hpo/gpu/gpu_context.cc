#include "hpo/gpu/gpu_context.h"

#include <cstdlib>

namespace hpo {

GpuContext resolve_gpu_context(const std::string& profile_flag, int cores) {
  GpuContext context;
  // Profiles first: a typo in --gpu-profile should not wait for nvidia-smi.
  const GpuProfileRegistry registry = GpuProfileRegistry::load(gpu_profile_search_dirs());
  const char* env = std::getenv("GPU_PROFILE");
  const std::string env_value = env ? env : "";
  const bool explicit_choice = !profile_flag.empty() || !env_value.empty();
  if (explicit_choice) context.choice = select_profile(registry, profile_flag, env_value, {});
  context.detection = detect_gpus();
  if (!explicit_choice)
    context.choice = select_profile(registry, "", "", context.detection.devices);
  if (cores > 0) {
    context.cores = cores;
    context.cores_reason = std::to_string(cores) + " (--cores)";
  } else {
    const CpuCores detected = detect_cpu_cores();
    context.cores = detected.cores;
    context.cores_reason = detected.explain();
  }
  return context;
}

}  // namespace hpo
