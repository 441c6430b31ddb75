// Trainer failures that every later trial would repeat, which stop the sweep
// (docs/trainer-protocol.md), each said by a marker in the trainer's log:
// - "no_cuda:": given a GPU slot, the trainer cannot use CUDA (a CPU-only
//   build, no visible device); hpo stops instead of training the rest of the
//   sweep on the CPU unawares (exit 6).
// - "bad_env:": the trainer refuses a setting of the environment hpo gives
//   every trial (AMP_DTYPE=fp7); hpo stops, naming the study's env (exit 2).
#ifndef HPO_RUN_NO_CUDA_H_
#define HPO_RUN_NO_CUDA_H_

#include <string>

namespace hpo {

inline constexpr const char* kNoCudaMarker = "no_cuda:";
inline constexpr const char* kBadEnvMarker = "bad_env:";

// The first line of `log` that holds `marker`, from the marker on and
// trimmed; empty if none.
std::string find_marked_line(const std::string& log, const char* marker);
inline std::string find_no_cuda_line(const std::string& log) {
  return find_marked_line(log, kNoCudaMarker);
}

// Whether a trial's fail reason is such a failure.
bool is_no_cuda(const std::string& reason);
bool is_bad_env(const std::string& reason);

}  // namespace hpo

#endif  // HPO_RUN_NO_CUDA_H_
