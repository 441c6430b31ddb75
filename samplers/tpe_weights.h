// The weights of the observations in TPE's l(x) and g(x).
#ifndef HPO_SAMPLERS_TPE_WEIGHTS_H_
#define HPO_SAMPLERS_TPE_WEIGHTS_H_

#include <Eigen/Core>

namespace hpo {

// Optuna's weights for n observations in chronological order: 1 each,
// except that when n >= 25 all but the newest 25 ramp up from 1/n.
Eigen::ArrayXd default_weights(int n);

// The expected-improvement weights of the good trials: each its
// improvement over `threshold` (the best loss among the rest), at least
// 1e-12, so the best trials dominate l(x). Uniform when the threshold or
// a loss is not finite (pruned or running trials in the split).
Eigen::ArrayXd improvement_weights(const Eigen::ArrayXd& losses, double threshold);

}  // namespace hpo

#endif  // HPO_SAMPLERS_TPE_WEIGHTS_H_
