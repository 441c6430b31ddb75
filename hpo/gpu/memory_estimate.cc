#include "hpo/gpu/memory_estimate.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hpo {

namespace {

constexpr double kFloatBytes = 4;
constexpr double kModelCopies = 1 + 1 + 2;  // weights, grads, AdamW's two moments

// A weight-normalized causal convolution: v, the gain g and the bias.
int64_t conv_params(int64_t in, int64_t out, int64_t kernel) {
  return in * out * kernel + out + out;
}

int64_t tcn_params(const ModelShape& s) {
  int64_t total = 0;
  int64_t in = s.features;
  for (int64_t layer = 0; layer < s.layers; ++layer) {
    total += conv_params(in, s.hidden_size, s.kernel_size) +
             conv_params(s.hidden_size, s.hidden_size, s.kernel_size);
    if (in != s.hidden_size)
      total += in * s.hidden_size + s.hidden_size;  // 1x1 residual projection
    in = s.hidden_size;
  }
  return total + s.hidden_size + 1;  // linear head
}

int64_t mlp_params(const ModelShape& s) {
  int64_t total = 0;
  int64_t in = s.features * s.lookback;
  for (int64_t layer = 0; layer < s.layers; ++layer) {
    total += in * s.hidden_size + s.hidden_size;
    in = s.hidden_size;
  }
  return total + in + 1;
}

// The largest value a parameter named `name` may take, if the space samples
// it and its values are numbers.
std::optional<double> largest(const SearchSpace& space, const std::string& name) {
  for (const ParamSpec& p : space) {
    if (p.name != name) continue;
    if (const auto* c = std::get_if<CategoricalDistribution>(&p.distribution)) {
      std::optional<double> best;
      for (const ParamValue& v : c->choices) {
        if (is_numeric(v)) best = std::max(best.value_or(as_double(v)), as_double(v));
      }
      return best;
    }
    if (const auto* i = std::get_if<IntDistribution>(&p.distribution))
      return static_cast<double>(i->high);
    return std::get<FloatDistribution>(p.distribution).high;
  }
  return std::nullopt;
}

int64_t worst(const SearchSpaceConfig& space, const std::string& name, int64_t fallback) {
  if (auto value = largest(space.params, name)) return static_cast<int64_t>(std::llround(*value));
  return fixed_int(space.fixed, name, fallback);
}

}  // namespace

int64_t count_params(const ModelShape& shape) {
  return shape.model == "mlp" ? mlp_params(shape) : tcn_params(shape);
}

MemoryEstimate estimate_memory(const ModelShape& s, bool on_gpu) {
  MemoryEstimate e;
  e.params = count_params(s);
  e.model_bytes = static_cast<double>(e.params) * kFloatBytes * kModelCopies;
  // An MLP's hidden layers have no time axis; a TCN's keep all of it.
  const double steps = s.model == "mlp" ? 1.0 : static_cast<double>(s.lookback);
  const double per_layer =
      s.model == "mlp" ? 3.0 : static_cast<double>(kTensorsPerLayer);  // linear, ReLU, dropout
  e.activation_bytes = static_cast<double>(s.batch_size) * steps *
                       static_cast<double>(s.hidden_size) * static_cast<double>(s.layers) *
                       per_layer * kFloatBytes;
  if (s.amp && on_gpu) e.activation_bytes /= 2;
  e.input_bytes = static_cast<double>(s.batch_size * s.features * s.lookback) * kFloatBytes;
  e.context_bytes = on_gpu ? kCudaContextBytes : 0;
  return e;
}

double training_flops(const ModelShape& shape, int64_t samples_per_epoch, int64_t epochs) {
  return 6.0 * static_cast<double>(count_params(shape)) * static_cast<double>(shape.lookback) *
         static_cast<double>(samples_per_epoch) * static_cast<double>(epochs);
}

int64_t fixed_int(const FixedValues& fixed, const std::string& name, int64_t fallback) {
  for (const auto& [key, value] : fixed) {
    if (key == name && is_numeric(value))
      return static_cast<int64_t>(std::llround(as_double(value)));
  }
  return fallback;
}

ModelShape worst_case_shape(const SearchSpaceConfig& space,
                            const std::vector<std::pair<std::string, std::string>>& env,
                            bool on_gpu) {
  ModelShape s;
  for (const auto& [key, value] : space.fixed) {
    if (key == "model" && std::holds_alternative<std::string>(value))
      s.model = std::get<std::string>(value);
  }
  s.hidden_size = worst(space, "hidden_size", s.hidden_size);
  s.layers = worst(space, "layers", s.layers);
  s.kernel_size = worst(space, "kernel_size", s.kernel_size);
  s.lookback = worst(space, "lookback", s.lookback);
  s.batch_size = worst(space, "batch_size", s.batch_size);
  std::string amp = "bf16";
  for (const auto& [key, value] : env) {
    if (key == "AMP_DTYPE") amp = value;
  }
  s.amp = on_gpu && amp != "off";
  return s;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 || bytes >= 100 ? "%.0f %s" : "%.1f %s", bytes,
                units[unit]);
  return buf;
}

double host_memory_bytes() {
  return static_cast<double>(::sysconf(_SC_PHYS_PAGES)) *
         static_cast<double>(::sysconf(_SC_PAGESIZE));
}

}  // namespace hpo
