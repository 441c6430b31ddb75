// Gaussian-process Bayesian optimization (`sampler: {name: gp}`), for the
// small budgets where each trial must teach something.
//
// Each ask fits a GP to the history (gp_history.h: which trials count and
// how) on the encoded space (gp_space.h): a Matérn-5/2 kernel with ARD
// lengthscales and a Hamming kernel for categoricals (matern_kernel.h),
// hyperparameters by maximum a posteriori (gp_hyperparameters.h), running
// trials as fantasies at the posterior mean; then it suggests the maximizer
// of log expected improvement (log_ei.h, acquisition_optimizer.h).
//
// The first n_startup_trials are random (none in a warm-started study:
// prior_observations.h), as is every parameter the GP does
// not model: conditional parameters (those with `condition:`) are drawn
// uniformly, then dropped where their condition fails. Only unconditional
// parameters are modelled, so a conditional space is optimized over its
// always-present parameters.
//
// Everything depends only on the seed, the history and the trial number:
// no state is kept between asks, so a resumed study gets the same
// suggestions.
#ifndef HPO_SAMPLERS_GP_SAMPLER_H_
#define HPO_SAMPLERS_GP_SAMPLER_H_

#include "samplers/gp_options.h"
#include "samplers/sampler.h"

namespace hpo {

class GpSampler : public Sampler {
 public:
  GpSampler(uint64_t seed, Direction direction, GpOptions options = {})
      : Sampler(seed, direction), options_(options) {}

  std::string name() const override { return "gp"; }
  int startup_trials() const override { return options_.n_startup_trials; }
  ParamValues ask(const SearchSpace& space, int number) override;

  const GpOptions& options() const { return options_; }

 private:
  GpOptions options_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_GP_SAMPLER_H_
