#include "trainer/runtime_settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "trainer/error.h"

namespace hpo::trainer {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// The boolean `v` spells, if it spells one.
std::optional<bool> parse_bool(const char* v) {
  const std::string s = lower(v);
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  return std::nullopt;
}

void read_bool(const EnvLookup& getenv, const char* name, bool* out) {
  const char* v = getenv(name);
  if (!v || !*v) return;
  const std::optional<bool> b = parse_bool(v);
  if (!b)
    throw UsageError(
        fmt::format("environment: {}='{}' is not a boolean (use 1/0, true/false)", name, v));
  *out = *b;
}

void read_int(const EnvLookup& getenv, const char* name, int min, int* out) {
  const char* v = getenv(name);
  if (!v || !*v) return;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < min || n > 4096)
    throw UsageError(fmt::format("environment: {}='{}' is not an integer >= {}", name, v, min));
  *out = int(n);
}

// A boolean that may also be "auto" (or unset): nullopt then.
std::optional<bool> read_auto_bool(const EnvLookup& getenv, const char* name) {
  const char* v = getenv(name);
  if (!v || !*v || lower(v) == "auto") return std::nullopt;
  const std::optional<bool> b = parse_bool(v);
  if (!b)
    throw UsageError(fmt::format(
        "environment: {}='{}' is not a boolean or auto (use 1/0, true/false, auto)", name, v));
  return b;
}

}  // namespace

RuntimeSettings read_runtime_settings(const EnvLookup& getenv) {
  RuntimeSettings s;
  read_int(getenv, "NUM_WORKERS", 0, &s.num_workers);
  read_int(getenv, "PREFETCH_FACTOR", 1, &s.prefetch_factor);
  read_bool(getenv, "PIN_MEMORY", &s.pin_memory);
  if (const char* v = getenv("PIN_MEMORY_DEVICE")) s.pin_memory_device = v;
  read_bool(getenv, "PERSISTENT_WORKERS", &s.persistent_workers);
  if (std::optional<bool> on = read_auto_bool(getenv, "CUDNN_BENCHMARK"))
    s.cudnn_benchmark = *on ? CudnnBenchmark::kOn : CudnnBenchmark::kOff;
  // unset or auto: the default, kAuto
  read_bool(getenv, "TF32", &s.tf32);
  if (const char* v = getenv("AMP_DTYPE"); v && *v) {
    s.amp_dtype = lower(v);
    if (s.amp_dtype == "bfloat16") s.amp_dtype = "bf16";
    if (s.amp_dtype == "float16" || s.amp_dtype == "half") s.amp_dtype = "fp16";
    if (s.amp_dtype == "none" || s.amp_dtype == "0" || s.amp_dtype == "false") s.amp_dtype = "off";
    if (s.amp_dtype != "bf16" && s.amp_dtype != "fp16" && s.amp_dtype != "off")
      throw UsageError(fmt::format("environment: AMP_DTYPE='{}' must be bf16, fp16 or off", v));
  }
  read_bool(getenv, "FUSED_OPTIMIZER", &s.fused_optimizer);
  read_bool(getenv, "CUDA_GRAPHS", &s.cuda_graphs);
  read_bool(getenv, "DEVICE_FEATURES", &s.device_features);
  s.channels_last = read_auto_bool(getenv, "CHANNELS_LAST");
  s.series_scoring = read_auto_bool(getenv, "SERIES_SCORING");
  if (const char* v = getenv("HPO_DEVICE"); v && *v) {
    s.device = lower(v);
    if (s.device != "auto" && s.device != "cpu" && s.device != "cuda")
      throw UsageError(fmt::format("environment: HPO_DEVICE='{}' must be auto, cpu or cuda", v));
  }
  read_int(getenv, "OMP_NUM_THREADS", 1, &s.omp_threads);
  if (const char* v = getenv("HPO_GPU_MEMORY_FRACTION"); v && *v) {
    char* end = nullptr;
    s.gpu_memory_fraction = std::strtod(v, &end);
    if (*end != '\0' || !(s.gpu_memory_fraction > 0 && s.gpu_memory_fraction <= 1))
      throw UsageError(
          fmt::format("environment: HPO_GPU_MEMORY_FRACTION='{}' must be a number in (0, 1]", v));
  }
  return s;
}

}  // namespace hpo::trainer
