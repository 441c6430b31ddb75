// Out-of-memory failures: recognising them in a trainer's log, and the
// retry at a smaller batch that keeps the effective batch
// (batch_size x grad_accum).
#ifndef HPO_RUN_OOM_H_
#define HPO_RUN_OOM_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hpo {

// The first line of `log` that reports running out of memory (CUDA, HIP,
// LibTorch's CPU allocator, std::bad_alloc, ...), trimmed; empty if none.
std::string find_oom_line(const std::string& log);

// The config for an OOM retry: batch_size divided by its smallest factor f
// and grad_accum multiplied by f (an even batch halves, 375 becomes 125 x 3),
// so the effective batch stays exactly the same. A prime batch b >= 3 has no
// such split: it becomes (b + 1) / 2 with grad_accum doubled, grad_accum
// more samples per optimizer step than before. Empty when there is no
// retry (no integer batch_size, or it is already 1).
std::optional<nlohmann::ordered_json> halve_batch(const nlohmann::ordered_json& config);

}  // namespace hpo

#endif  // HPO_RUN_OOM_H_
