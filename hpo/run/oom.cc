#include "hpo/run/oom.h"

#include <sstream>

#include "hpo/text/ascii.h"

namespace hpo {

namespace {

// What frameworks print when an allocation fails, lower-cased.
const char* const kOomPatterns[] = {
    "out of memory",  // CUDA/HIP OutOfMemoryError, RuntimeError: CUDA error: out of memory
    "outofmemoryerror",  // c10::OutOfMemoryError, torch.cuda.OutOfMemoryError
    "defaultcpuallocator: can't allocate",  // LibTorch on the CPU
    "std::bad_alloc",
    "cublas_status_alloc_failed",
    "cudaerrormemoryallocation",
    "resource_exhausted",  // XLA / TensorFlow
};

// The smallest factor > 1 of n >= 2 (n itself when n is prime).
int64_t smallest_factor(int64_t n) {
  for (int64_t f = 2; f <= n / f; ++f) {
    if (n % f == 0) return f;
  }
  return n;
}

}  // namespace

std::string find_oom_line(const std::string& log) {
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    const std::string l = ascii_lower(line);
    for (const char* pattern : kOomPatterns) {
      if (l.find(pattern) == std::string::npos) continue;
      std::string trimmed = trim_blanks(line);
      if (trimmed.size() > 200) trimmed = trimmed.substr(0, 200) + "...";
      return trimmed;
    }
  }
  return "";
}

std::optional<nlohmann::ordered_json> halve_batch(const nlohmann::ordered_json& config) {
  const auto batch = config.find("batch_size");
  if (batch == config.end() || !batch->is_number_integer() || batch->get<int64_t>() < 2)
    return std::nullopt;
  const int64_t b = batch->get<int64_t>();
  const auto accum = config.find("grad_accum");
  const int64_t k = accum != config.end() && accum->is_number_integer() ? accum->get<int64_t>() : 1;
  // b / f with f the smallest factor of b is the largest batch below b that
  // divides it, so grad_accum * f keeps b * k samples per optimizer step
  // exactly (375 -> 125 x 3). A prime b has no such split: (b + 1) / 2 twice
  // is one sample more per accumulation step, which beats batch 1 (b steps).
  const int64_t f = smallest_factor(b);
  nlohmann::ordered_json retry = config;
  retry["batch_size"] = f < b ? b / f : (b + 1) / 2;
  retry["grad_accum"] = k * (f < b ? f : 2);
  return retry;
}

}  // namespace hpo
