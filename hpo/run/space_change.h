// Whether a study's stored trials and today's search space can share it.
// Optuna refuses to store a parameter whose distribution differs from the
// one earlier trials of the study stored under that name in kind (float,
// int, categorical), in log scale, or, for a categorical, in its choices;
// hpo stores through its own code, so it must refuse the same, or write a
// study Optuna then fails on ("CategoricalDistribution does not support
// dynamic value space"). Bounds and steps may change, as in Optuna.
#ifndef HPO_RUN_SPACE_CHANGE_H_
#define HPO_RUN_SPACE_CHANGE_H_

#include <string>
#include <vector>

#include "hpo/storage/storage.h"
#include "samplers/search_space.h"

namespace hpo {

// The first parameter of `space` that the stored `trials` hold with a
// distribution Optuna would refuse beside it, said as "'act': categorical
// [relu, tanh] in the stored trials, categorical [relu, gelu] now"; "" when
// every parameter fits.
std::string incompatible_space_change(const std::vector<TrialRecord>& trials,
                                      const SearchSpace& space);

}  // namespace hpo

#endif  // HPO_RUN_SPACE_CHANGE_H_
