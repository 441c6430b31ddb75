#include "samplers/kernel_fit_memo.h"

#include "samplers/gp_hyperparameters.h"
#include "samplers/gp_targets.h"

namespace hpo {

Eigen::Index fitted_rows(Eigen::Index observed) {
  if (observed <= kFitAllRows) return observed;
  Eigen::Index m = kFitAllRows;
  // Integer steps of 5/4, so that every platform picks the same m.
  while (m + m / 4 <= observed) m += m / 4;
  return m;
}

KernelParams KernelFitMemo::fit(const GpHistory& history, const std::vector<bool>& categorical,
                                bool deterministic, bool source_dim) {
  const Eigen::Index m = fitted_rows(history.x.rows());
  const auto x = history.x.topRows(m);
  const auto raw = history.raw.head(m);
  const bool same = params_ && x_.rows() == m && x_ == x && raw_ == raw &&
                    categorical_ == categorical && deterministic_ == deterministic &&
                    source_dim_ == source_dim;
  if (same) return *params_;
  x_ = x;
  raw_ = raw;
  categorical_ = categorical;
  deterministic_ = deterministic;
  source_dim_ = source_dim;
  params_ = fit_kernel(x_, gp_targets(raw_), categorical, deterministic, source_dim);
  return *params_;
}

}  // namespace hpo
