// How TPE models one parameter: the kernel's domain, and the maps between a
// parameter's internal values and the estimator's model space (log-values
// for log parameters, ranks for ordered numeric choices).
#ifndef HPO_SAMPLERS_TPE_PARAM_H_
#define HPO_SAMPLERS_TPE_PARAM_H_

#include <vector>

#include "samplers/distribution.h"
#include "samplers/parzen_estimator.h"

namespace hpo {

class TpeParam {
 public:
  // With `ordered_choices`, a categorical whose choices are all numbers is
  // modelled as a grid over the choices' ranks by value, so that a good
  // batch size of 512 also makes 256 and 1024 likelier; otherwise, and for
  // other categoricals, each choice is its own unrelated category.
  TpeParam(const Distribution& dist, bool ordered_choices);

  const KernelDim& kernel() const { return kernel_; }

  // True when the distribution holds a single value: nothing to model.
  bool single() const { return single_; }

  double to_model(double internal) const;

  // Snaps a model-space draw into the distribution (onto its grid, inside
  // its bounds) and returns the internal value.
  double to_internal(double model) const;

 private:
  Distribution dist_;
  KernelDim kernel_;
  bool log_ = false;
  bool single_ = false;
  std::vector<int> rank_of_index_;  // ordered choices only
  std::vector<int> index_of_rank_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_TPE_PARAM_H_
