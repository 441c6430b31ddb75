// The Deflated Sharpe Ratio of a sweep's selected trial, from every trial's
// validation returns: V, the mean correlation, N_eff and the DSR put
// together in one place, so that `hpo best` and the tests that simulate
// noise sweeps run the same code.
#ifndef HPO_STATS_SWEEP_DSR_H_
#define HPO_STATS_SWEEP_DSR_H_

#include "hpo/stats/deflated_sharpe.h"
#include "hpo/stats/effective_trials.h"

namespace hpo::stats {

struct SweepDsr {
  double mean_correlation = 0;  // of `aligned`'s rows; NaN: unknown
  double n_effective = 0;  // rho + (1 - rho) N, in [1, N]
  double sharpe_variance = 0;  // V, over the trials that have a Sharpe ratio
  int without_sharpe = 0;  // trials left out of V: constant returns, or < 2 days
  bool has_dsr = false;  // false: no selected trial, or it has no Sharpe ratio
  int t = 0;
  double skew = 0, kurtosis = 0;
  DeflatedSharpe dsr;
};

// `own`: each trial's whole validation returns (V); `aligned`: the same
// trials on their common dates (the mean correlation); `selected`: the
// selected trial's row, or -1; `n_trials`: every trial tried.
SweepDsr sweep_deflated_sharpe(const Series& own, const Series& aligned, int selected,
                               double n_trials);

}  // namespace hpo::stats

#endif  // HPO_STATS_SWEEP_DSR_H_
