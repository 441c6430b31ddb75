#include "hpo/run/oom.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace hpo {

namespace {

// What frameworks print when an allocation fails, lower-cased.
const char* const kOomPatterns[] = {
    "out of memory",                          // CUDA/HIP OutOfMemoryError, RuntimeError: CUDA error: out of memory
    "outofmemoryerror",                       // c10::OutOfMemoryError, torch.cuda.OutOfMemoryError
    "defaultcpuallocator: can't allocate",    // LibTorch on the CPU
    "std::bad_alloc",
    "cublas_status_alloc_failed",
    "cudaerrormemoryallocation",
    "resource_exhausted",                     // XLA / TensorFlow
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::string find_oom_line(const std::string& log) {
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    const std::string l = lower(line);
    for (const char* pattern : kOomPatterns) {
      if (l.find(pattern) == std::string::npos) continue;
      const auto first = line.find_first_not_of(" \t");
      const auto last = line.find_last_not_of(" \t\r");
      std::string trimmed = first == std::string::npos ? "" : line.substr(first, last - first + 1);
      if (trimmed.size() > 200) trimmed = trimmed.substr(0, 200) + "...";
      return trimmed;
    }
  }
  return "";
}

std::optional<nlohmann::ordered_json> halve_batch(const nlohmann::ordered_json& config) {
  const auto batch = config.find("batch_size");
  if (batch == config.end() || !batch->is_number_integer() || batch->get<int64_t>() < 2) return std::nullopt;
  nlohmann::ordered_json retry = config;
  retry["batch_size"] = batch->get<int64_t>() / 2;
  const auto accum = config.find("grad_accum");
  const int64_t k = accum != config.end() && accum->is_number_integer() ? accum->get<int64_t>() : 1;
  retry["grad_accum"] = k * 2;
  return retry;
}

}  // namespace hpo
