// Splits a loop over [0, n) into contiguous ranges run on their own threads.
// For work done once per process, such as the feature build (features.cc),
// where a pool would outlive its use. Not at::parallel_for: in a file built
// without -fopenmp, an OpenMP LibTorch's inline parallel_for runs serially.
#ifndef HPO_TRAINER_PARALLEL_H_
#define HPO_TRAINER_PARALLEL_H_

#include <cstddef>
#include <functional>

namespace hpo::trainer {

// Calls fn(first, end) over at most `threads` (>= 1 taken) ranges that cover
// [0, n) in order, the first on the calling thread; returns when every one
// has. The ranges never overlap, so fn may write what its range owns. The
// first exception a range throws is rethrown once all have ended.
void parallel_ranges(size_t n, size_t threads, const std::function<void(size_t, size_t)>& fn);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_PARALLEL_H_
