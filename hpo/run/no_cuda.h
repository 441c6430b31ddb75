// A trainer that was given a GPU slot but cannot use CUDA (a CPU-only build,
// no visible device) says so with a line containing "no_cuda:" and exits
// non-zero (docs/trainer-protocol.md). hpo then stops the sweep instead of
// training the rest of it on the CPU unawares.
#ifndef HPO_RUN_NO_CUDA_H_
#define HPO_RUN_NO_CUDA_H_

#include <string>

namespace hpo {

inline constexpr const char* kNoCudaMarker = "no_cuda:";

// The first line of `log` that holds kNoCudaMarker, from the marker on and
// trimmed; empty if none.
std::string find_no_cuda_line(const std::string& log);

// Whether a trial's fail reason is such a failure.
bool is_no_cuda(const std::string& reason);

}  // namespace hpo

#endif  // HPO_RUN_NO_CUDA_H_
