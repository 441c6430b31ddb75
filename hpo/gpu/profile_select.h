// Which GPU profile a run uses, and why: --gpu-profile, else $GPU_PROFILE,
// else the profile matching the detected GPUs, else `cpu` when there is none.
#ifndef HPO_GPU_PROFILE_SELECT_H_
#define HPO_GPU_PROFILE_SELECT_H_

#include <string>
#include <vector>

#include "hpo/gpu/gpu_device.h"
#include "hpo/gpu/gpu_profile.h"

namespace hpo {

enum class ProfileSource { kFlag, kEnv, kDetected, kDefault };

struct ProfileChoice {
  GpuProfile profile;
  ProfileSource source = ProfileSource::kDefault;
  std::string reason;  // "--gpu-profile h100", "NVIDIA H100 80GB HBM3, 79.65 GiB", "no GPU found"
};

// "flag", "env", "detected", "default".
const char* to_string(ProfileSource source);

// The profile for `device`: among the profiles whose `match` names occur in
// the device's name (ignoring case, spaces, '-' and '_'), the one whose
// vram_gb is closest to the device's memory, so "NVIDIA A100-SXM4-40GB"
// picks a100_40gb over a100_80gb. With no name match, the largest profile
// whose vram_gb fits in the device's memory. nullptr when none fits.
const GpuProfile* match_profile(const GpuProfileRegistry& registry, const GpuDevice& device);

// Explicit choices win: `flag`, then `env` (each a name or a file path;
// unknown names throw ConfigError listing the profiles). Otherwise the first
// detected device is matched (a machine's GPUs are assumed alike); a GPU no
// profile fits gets a one-trial-per-GPU profile built from its memory.
// Without devices: the registry's `cpu` profile, or a built-in one.
ProfileChoice select_profile(const GpuProfileRegistry& registry, const std::string& flag,
                             const std::string& env, const std::vector<GpuDevice>& devices);

}  // namespace hpo

#endif  // HPO_GPU_PROFILE_SELECT_H_
