// Which parameters multivariate TPE models jointly. Trials in a study's
// database need not all hold every parameter (the space changed, or Optuna
// created them), and a joint model needs observations of all its
// parameters at once.
#ifndef HPO_SAMPLERS_TPE_GROUPS_H_
#define HPO_SAMPLERS_TPE_GROUPS_H_

#include <vector>

namespace hpo {

// Parameters are 0..n_params-1; `present[t][p]` says whether trial t holds
// parameter p. Each group lists parameter numbers in ascending order.
using ParamGroups = std::vector<std::vector<int>>;
using Presence = std::vector<std::vector<bool>>;

// The coarsest partition of the parameters in which, in every trial, each
// group is held either entirely or not at all (Optuna's group decomposition).
ParamGroups decompose_groups(int n_params, const Presence& present);

// One group of the parameters every trial holds, then each other parameter
// alone (Optuna's intersection search space).
ParamGroups intersection_groups(int n_params, const Presence& present);

}  // namespace hpo

#endif  // HPO_SAMPLERS_TPE_GROUPS_H_
