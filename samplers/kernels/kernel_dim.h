// One dimension of a Parzen estimator's domain, in model space (see
// samplers/parzen_estimator.h), and which kernel family serves it.
#ifndef HPO_SAMPLERS_KERNELS_KERNEL_DIM_H_
#define HPO_SAMPLERS_KERNELS_KERNEL_DIM_H_

namespace hpo {

struct KernelDim {
  bool categorical = false;
  int n_choices = 0;  // categorical only
  double low = 0.0;  // numeric: the kernels' support; a grid's is widened by q/2
  double high = 1.0;
  double q = 0.0;  // numeric: the grid step; 0 for continuous
};

// Grids and categoricals: dimensions whose kernels take few distinct forms.
inline bool is_discrete(const KernelDim& dim) { return dim.categorical || dim.q > 0; }

}  // namespace hpo

#endif  // HPO_SAMPLERS_KERNELS_KERNEL_DIM_H_
