#include "hpo/gpu/profile_select.h"

#include <cctype>
#include <cmath>

#include "hpo/config/config_error.h"
#include "samplers/param_value.h"

namespace hpo {

namespace {

// nvidia-smi writes "NVIDIA GeForce RTX 4090" and "NVIDIA A100-SXM4-40GB";
// profiles say "rtx4090" and "a100". Compare without case and separators.
std::string squash(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool name_matches(const GpuProfile& profile, const std::string& device_name) {
  const std::string name = squash(device_name);
  for (const std::string& m : profile.match) {
    if (name.find(squash(m)) != std::string::npos) return true;
  }
  return false;
}

// nvidia-smi reports usable memory: 81559 MiB (79.6 GiB) on an "80GB" H100,
// 24564 MiB on a "24GB" RTX 4090. Allow that much shortfall.
bool fits(const GpuProfile& profile, const GpuDevice& device) {
  return profile.vram_gb <= device.memory_total_gib() * 1.05;
}

GpuProfile fallback_for(const GpuDevice& device) {
  GpuProfile p;
  p.name = "generic";
  p.description = "built in: one trial per GPU, for a GPU no profile fits";
  p.vram_gb = std::floor(device.memory_total_gib());
  p.max_parallel_trials = 1;
  p.memory_per_model_gb = p.vram_gb;
  return p;
}

GpuProfile builtin_cpu() {
  GpuProfile p;
  p.name = "cpu";
  p.description = "built in: trials on CPU cores";
  p.cpu = true;
  p.max_parallel_trials = 0;
  return p;
}

}  // namespace

const char* to_string(ProfileSource source) {
  switch (source) {
    case ProfileSource::kFlag:
      return "flag";
    case ProfileSource::kEnv:
      return "env";
    case ProfileSource::kDetected:
      return "detected";
    case ProfileSource::kDefault:
      break;
  }
  return "default";
}

const GpuProfile* match_profile(const GpuProfileRegistry& registry, const GpuDevice& device) {
  const GpuProfile* best = nullptr;
  auto distance = [&](const GpuProfile* p) {
    return std::fabs(p->vram_gb - device.memory_total_gib());
  };
  for (const GpuProfile& p : registry.profiles()) {
    if (p.cpu || !name_matches(p, device.name)) continue;
    if (!best || distance(&p) < distance(best)) best = &p;
  }
  if (best) return best;
  for (const GpuProfile& p : registry.profiles()) {
    if (p.cpu || !fits(p, device)) continue;
    if (!best || p.vram_gb > best->vram_gb) best = &p;
  }
  return best;
}

ProfileChoice select_profile(const GpuProfileRegistry& registry, const std::string& flag,
                             const std::string& env, const std::vector<GpuDevice>& devices) {
  if (!flag.empty()) return {registry.get(flag), ProfileSource::kFlag, "--gpu-profile " + flag};
  if (!env.empty()) {
    try {
      return {registry.get(env), ProfileSource::kEnv, "GPU_PROFILE=" + env};
    } catch (const ConfigError& e) {
      // A variable set in a shell profile long ago: say where the name came from.
      throw ConfigError(std::string("environment: GPU_PROFILE: ") + e.what());
    }
  }
  if (devices.empty()) {
    const GpuProfile* cpu = registry.find("cpu");
    return {cpu ? *cpu : builtin_cpu(), ProfileSource::kDefault, "no GPU found"};
  }
  const GpuDevice& first = devices.front();
  const std::string seen = first.name + ", " + short_number(first.memory_total_gib()) + " GiB";
  if (const GpuProfile* p = match_profile(registry, first))
    return {*p, ProfileSource::kDetected, seen};
  return {fallback_for(first), ProfileSource::kDetected,
          seen + "; no profile fits it: set GPU_PROFILE or add a profile file"};
}

}  // namespace hpo
