// Categorical kernels: each observation's kernel puts most of its mass on
// the observed choice and spreads the rest evenly; the prior is uniform.
#ifndef HPO_SAMPLERS_KERNELS_CATEGORICAL_H_
#define HPO_SAMPLERS_KERNELS_CATEGORICAL_H_

#include <Eigen/Core>
#include <cmath>

namespace hpo {

struct CategoricalKernels {
  // One kernel per observed choice in `obs`, then the prior's when
  // `with_prior`. `prior_weight` smooths as Optuna 3.1 does, unless
  // `categorical_prior_weight` > 0 (Aitchison-Aitken, see TpeOptions).
  void fit(int n_choices, const Eigen::Ref<const Eigen::ArrayXd>& obs, bool with_prior,
           double prior_weight, double categorical_prior_weight);

  // A draw from `kernel` for u uniform in [0, 1).
  int sample(int kernel, double u) const;

  // The log mass `kernel` puts on choice x.
  double log_term(Eigen::Index kernel, double x) const {
    const int hit = choice(kernel);
    if (hit < 0) return -std::log(static_cast<double>(n_choices));
    return hit == static_cast<int>(std::lround(x)) ? log_hit : log_miss;
  }

  // The log mass of each x under the mixture with weights `w`, one per
  // kernel: on one categorical dimension kernels with the same choice pool
  // their weights.
  Eigen::ArrayXd log_pdf(const Eigen::ArrayXd& w, const Eigen::ArrayXd& x) const;

  int n_choices = 0;
  Eigen::ArrayXi choice;  // the observed choice per kernel, -1 for the prior
  double log_hit = 0, log_miss = 0;  // an observation kernel's log mass at / off its choice
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_KERNELS_CATEGORICAL_H_
