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

// How a trial's days in a block set are scored, larger is better: the
// selection rule PBO judges must be the one the sweep uses (issue #20).
enum class Score {
  kSharpe,  // mean / sample std, of daily net returns (a Sharpe objective)
  kMean,  // mean of the finite values, of daily RankIC (a RankIC objective)
};

struct CscvRule {
  Score score = Score::kSharpe;
  // In-sample winner by `--select robust`: each in-sample block scored on
  // its own, mean less one standard error over the S/2 blocks (a block
  // plays a fold). Out of sample the plain score is ranked.
  bool robust = false;
};

struct Pbo {
  int blocks = 0;  // S
  int trials = 0;  // N, the rows
  double pbo = 0;  // share of logits < 0, those == 0 counted as half
  std::vector<double> logits;  // lambda per combination, in enumeration order
};

// One CSCV combination: the blocks in sample and out of sample.
struct Split {
  std::vector<bool> in, out;
};

// The C(S, S/2) combinations: each takes S/2 blocks in sample and the other
// S/2 out of sample, so the two sides never share a day. In lexicographic
// order of `in`.
std::vector<Split> cscv_splits(int blocks);

// The dates (columns of `scores`, one row per trial) are cut into S equal
// blocks in order (block b is columns [b T / S, (b + 1) T / S)). For each
// split the trial with the best in-sample score is found; omega is its
// out-of-sample score's rank among all trials (1..N, ties averaged) over
// N + 1, and lambda = ln(omega / (1 - omega)). PBO = share of lambda < 0,
// lambda == 0 (the median rank, odd N) counted as half, so that pure noise
// gives exactly 1/2 for every N. A Sharpe ratio whose spread is negligible
// next to its mean (a constant series) is 0; NaN values (a day without a
// RankIC) are left out of a block's score.
//
// Throws std::invalid_argument (saying what was expected) unless S is even
// and >= 2, there are >= 2 trials, all rows have the same length and each
// block has >= 2 dates.
Pbo probability_of_backtest_overfitting(const Series& scores, int blocks = 16, CscvRule rule = {});

// The same over given splits: cscv_splits(S) for the real thing; tests pass
// broken ones to show that their checks catch a leaking CSCV.
Pbo probability_of_backtest_overfitting(const Series& scores, int blocks,
                                        const std::vector<Split>& splits, CscvRule rule);

// Counts of `logits` in `bins` equal bins over [lo, hi); values outside fall
// in the first or last bin.
std::vector<int> histogram(const std::vector<double>& values, int bins, double lo, double hi);

}  // namespace hpo::stats

#endif  // HPO_STATS_CSCV_H_
