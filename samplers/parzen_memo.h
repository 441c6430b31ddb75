// The last Parzen estimator fitted for one side (l(x) or g(x)) of one
// parameter group, kept between asks with its whole input.
//
// Fitting g(x) is a pass over every trial (bandwidths, normalizers, grid
// groups) and cost as much as scoring the candidates at 10,000 trials. An
// ask whose history did not change for that side (a failed or running
// trial told since the last one, several asks in a row, l(x) while only
// g(x) moved) meets the same input and gets the same estimator back. The
// estimator is a function of its input alone and the memo is keyed by all
// of it, so a sampler that remembers suggests exactly what a fresh one
// told the same history does, however the history grew, shrank or was
// told out of order.
#ifndef HPO_SAMPLERS_PARZEN_MEMO_H_
#define HPO_SAMPLERS_PARZEN_MEMO_H_

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "samplers/parzen_estimator.h"

namespace hpo {

class ParzenMemo {
 public:
  // ParzenEstimator(dims, obs, weights, options, order), fitted anew only
  // when any of them differs from the last call's.
  const ParzenEstimator& fit(const std::vector<KernelDim>& dims, const Eigen::ArrayXXd& obs,
                             const Eigen::ArrayXd& weights, const ParzenOptions& options,
                             const std::vector<std::vector<int>>& order);

 private:
  bool same_input(const std::vector<KernelDim>& dims, const Eigen::ArrayXXd& obs,
                  const Eigen::ArrayXd& weights, const ParzenOptions& options,
                  const std::vector<std::vector<int>>& order) const;

  std::vector<KernelDim> dims_;
  Eigen::ArrayXXd obs_;
  Eigen::ArrayXd weights_;
  ParzenOptions options_;
  std::vector<std::vector<int>> order_;
  std::unique_ptr<ParzenEstimator> fitted_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_PARZEN_MEMO_H_
