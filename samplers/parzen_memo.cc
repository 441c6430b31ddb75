#include "samplers/parzen_memo.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "samplers/same_bits.h"

namespace hpo {

namespace {

bool same_dims(const std::vector<KernelDim>& a, const std::vector<KernelDim>& b) {
  auto fields = [](const KernelDim& d) {
    return std::tie(d.categorical, d.n_choices, d.low, d.high, d.q);
  };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](const KernelDim& x, const KernelDim& y) { return fields(x) == fields(y); });
}

bool same_options(const ParzenOptions& a, const ParzenOptions& b) {
  auto fields = [](const ParzenOptions& o) {
    return std::tie(o.consider_prior, o.prior_weight, o.prior_kernel_weight, o.consider_magic_clip,
                    o.min_bandwidth_factor, o.magic_clip_exponent, o.consider_endpoints,
                    o.multivariate, o.bandwidth, o.normalized, o.categorical_prior_weight,
                    o.min_bandwidth_step);
  };
  return fields(a) == fields(b);
}

}  // namespace

bool ParzenMemo::same_input(const std::vector<KernelDim>& dims, const Eigen::ArrayXXd& obs,
                            const Eigen::ArrayXd& weights, const ParzenOptions& options,
                            const std::vector<std::vector<int>>& order) const {
  return fitted_ && same_dims(dims, dims_) && same_options(options, options_) && order == order_ &&
         same_bits(obs, obs_) && same_bits(weights, weights_);
}

const ParzenEstimator& ParzenMemo::fit(const std::vector<KernelDim>& dims,
                                       const Eigen::ArrayXXd& obs, const Eigen::ArrayXd& weights,
                                       const ParzenOptions& options,
                                       const std::vector<std::vector<int>>& order) {
  if (same_input(dims, obs, weights, options, order)) return *fitted_;
  // The estimator it replaces lends the kernels that did not move.
  fitted_ = std::make_unique<ParzenEstimator>(dims, obs, weights, options, order, fitted_.get());
  dims_ = dims;
  obs_ = obs;
  weights_ = weights;
  options_ = options;
  order_ = order;
  return *fitted_;
}

}  // namespace hpo
