// A study sized to the card: a GPU profile says which batch sizes its GPU
// runs well and how many samples an epoch trains on, and the search space,
// written CPU-sized so that CI can run it, takes those on that GPU.
//
//   batch_size         a GPU profile's batch_size_choices replace the
//                      parameter's domain (it becomes categorical), unless
//                      the space marks it `pinned: true`;
//   max_train_samples  the profile's value becomes a fixed value of every
//                      trial, unless the study or its space fixes or
//                      samples one.
//
// Then the profile's ceilings apply to what the sampler draws
// (space_bounds.h), pinned or not: they keep trials within memory.
#ifndef HPO_GPU_SPACE_FIT_H_
#define HPO_GPU_SPACE_FIT_H_

#include <string>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/gpu/gpu_profile.h"

namespace hpo {

struct FittedSpace {
  // The space trials are stored with on this profile: the batch choices
  // replaced, max_train_samples fixed.
  SearchSpaceConfig declared;
  // What the sampler draws from: `declared` within the profile's ceilings.
  SearchSpace sampled;
  std::vector<std::string> from_profile;  // names whose domain or value the profile set
  std::vector<std::string> notes;  // one line per change, for the user
};

// Throws ConfigError when the ceilings leave a parameter nothing to draw.
FittedSpace fit_search_space(const SearchSpaceConfig& space, const GpuProfile& profile);

}  // namespace hpo

#endif  // HPO_GPU_SPACE_FIT_H_
