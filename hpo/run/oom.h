// Out-of-memory failures: recognising them in a trainer's log, and the
// retry that keeps the effective batch (batch_size / 2, grad_accum * 2).
#ifndef HPO_RUN_OOM_H_
#define HPO_RUN_OOM_H_

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace hpo {

// The first line of `log` that reports running out of memory (CUDA, HIP,
// LibTorch's CPU allocator, std::bad_alloc, ...), trimmed; empty if none.
std::string find_oom_line(const std::string& log);

// The config for an OOM retry: batch_size halved and grad_accum doubled.
// Empty when it cannot be (no integer batch_size, or it is already 1).
std::optional<nlohmann::ordered_json> halve_batch(const nlohmann::ordered_json& config);

}  // namespace hpo

#endif  // HPO_RUN_OOM_H_
