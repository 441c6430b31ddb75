// Which observations the kernel's parameters are fitted to, and a memo of
// the last fit, so that a long study does not pay an O(n^3) MAP fit (tens
// of Cholesky factorizations) on every ask.
//
// Up to kFitAllRows observations, every ask fits to all of them. Beyond,
// the fit sees the first m observations in trial-number order, m the
// largest point of a geometric grid (64, 80, 100, 125, ...) at most n: m
// only moves every ~25% more trials, and between moves the fit's input is
// the same, so the memo answers. The posterior still conditions on every
// observation; only the hyperparameters lag, by less than a quarter of the
// data.
//
// The fit is a function of its input alone (the rows, their raw values,
// made targets among themselves, and the options), and the memo is keyed
// by that whole input: a resumed study, which meets the input for the
// first time, computes the same parameters the uninterrupted one recalled.
#ifndef HPO_SAMPLERS_KERNEL_FIT_MEMO_H_
#define HPO_SAMPLERS_KERNEL_FIT_MEMO_H_

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "samplers/gp_history.h"
#include "samplers/matern_kernel.h"

namespace hpo {

constexpr Eigen::Index kFitAllRows = 64;

// How many of `observed` rows the fit sees.
Eigen::Index fitted_rows(Eigen::Index observed);

class KernelFitMemo {
 public:
  // The MAP kernel parameters for the first fitted_rows() rows of `history`.
  // `source_dim`: the last column of history.x is the source indicator
  // (gp_sources.h).
  KernelParams fit(const GpHistory& history, const std::vector<bool>& categorical,
                   bool deterministic, bool source_dim = false);

 private:
  Eigen::MatrixXd x_;
  Eigen::VectorXd raw_;
  std::vector<bool> categorical_;
  bool deterministic_ = false;
  bool source_dim_ = false;
  std::optional<KernelParams> params_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_KERNEL_FIT_MEMO_H_
