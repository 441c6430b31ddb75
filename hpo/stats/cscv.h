// The Probability of Backtest Overfitting by combinatorially symmetric
// cross-validation (CSCV): D. H. Bailey, J. M. Borwein, M. Lopez de Prado
// and Q. J. Zhu, "The Probability of Backtest Overfitting", Journal of
// Computational Finance 20(4), 2017 (SSRN 2326253, 2015).
#ifndef HPO_STATS_CSCV_H_
#define HPO_STATS_CSCV_H_

#include <string>
#include <vector>

#include "hpo/stats/effective_trials.h"

namespace hpo::stats {

struct Pbo {
  int blocks = 0;  // S
  int trials = 0;  // N, the rows
  double pbo = 0;  // share of logits <= 0
  std::vector<double> logits;  // lambda per combination, in enumeration order
};

// The dates (columns of `returns`, one row per trial) are cut into S equal
// blocks in order (block b is columns [b T / S, (b + 1) T / S)). For each
// of the C(S, S/2) ways to pick S/2 blocks as in-sample (the rest is
// out-of-sample), the trial with the best in-sample Sharpe ratio is found;
// omega is its out-of-sample Sharpe ratio's rank among all trials (1..N,
// ties averaged) over N + 1, and lambda = ln(omega / (1 - omega)).
// PBO = share of lambda <= 0: how often the in-sample winner lands at or
// below the out-of-sample median. A series with no spread in a block set
// has Sharpe ratio 0 there.
//
// Throws std::invalid_argument (saying what was expected) unless S is even
// and >= 2, there are >= 2 trials, all rows have the same length and each
// block has >= 2 dates.
Pbo probability_of_backtest_overfitting(const Series& returns, int blocks = 16);

// Counts of `logits` in `bins` equal bins over [lo, hi); values outside fall
// in the first or last bin.
std::vector<int> histogram(const std::vector<double>& values, int bins, double lo, double hi);

}  // namespace hpo::stats

#endif  // HPO_STATS_CSCV_H_
