// A GPU profile bounds the search space: batch sizes above the profile's
// ceiling, or hidden sizes above hidden_size_max, would run out of memory,
// so they are never sampled on that GPU.
#ifndef HPO_GPU_SPACE_BOUNDS_H_
#define HPO_GPU_SPACE_BOUNDS_H_

#include <string>
#include <vector>

#include "hpo/gpu/gpu_profile.h"
#include "samplers/search_space.h"

namespace hpo {

// Applies the profile's ceilings to the parameters named `batch_size`
// (batch_ceiling()) and `hidden_size` (hidden_size_max):
//   categorical: numeric choices above the ceiling are dropped (order kept);
//   int:         high is lowered to the ceiling (kept on the step grid);
//   float:       high is lowered to the ceiling.
// Returns one note per change ("batch_size: dropped 4096, 8192 (profile
// rtx_4090 allows <= 768)"). Throws ConfigError when nothing would be left.
//
// The bounded space is for the sampler only: trials are stored with the
// declared distributions (see hpo/run/sampling_space.h), so one study can
// run on GPUs with different ceilings.
std::vector<std::string> bound_search_space(SearchSpace& space, const GpuProfile& profile);

}  // namespace hpo

#endif  // HPO_GPU_SPACE_BOUNDS_H_
