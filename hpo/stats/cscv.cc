#include "hpo/stats/cscv.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "hpo/stats/moments.h"
#include "hpo/stats/spearman.h"

namespace hpo::stats {

namespace {

// Count, mean and centred sum of squares of some days' finite values. Kept
// centred and merged by Chan et al.'s pairwise update, so that a block set's
// variance is exact for a series whose mean is large next to its spread (the
// one-pass sum2 - n mean^2 flipped between 0 and +-1e13 on such a series).
struct Summary {
  double n = 0, mean = 0, m2 = 0;

  void merge(const Summary& o) {
    if (o.n == 0) return;
    const double total = n + o.n, delta = o.mean - mean;
    mean += delta * o.n / total;
    m2 += o.m2 + delta * delta * n * o.n / total;
    n = total;
  }

  // The score, larger is better; -inf when there is nothing to score.
  double score(Score kind) const {
    if (kind == Score::kMean) return n > 0 ? mean : -std::numeric_limits<double>::infinity();
    if (n < 2) return 0;
    const double std = std::sqrt(m2 / (n - 1));
    return negligible_spread(std, mean) ? 0 : mean / std;
  }
};

// Per trial and block, so that a block set costs S merges, not T days.
using BlockSummaries = std::vector<std::vector<Summary>>;  // [trial][block]

BlockSummaries block_summaries(const Series& scores, int blocks) {
  const size_t t = scores.front().size();
  BlockSummaries out(scores.size(), std::vector<Summary>(blocks));
  for (size_t i = 0; i < scores.size(); ++i) {
    for (int b = 0; b < blocks; ++b) {
      Summary& s = out[i][b];
      for (size_t d = b * t / blocks; d < (b + 1) * t / blocks; ++d) {
        const double v = scores[i][d];
        if (std::isnan(v)) continue;
        s.merge({1, v, 0});
      }
    }
  }
  return out;
}

double score_over(const std::vector<Summary>& row, const std::vector<bool>& side, Score kind) {
  Summary total;
  for (size_t b = 0; b < side.size(); ++b) {
    if (side[b]) total.merge(row[b]);
  }
  return total.score(kind);
}

// The robust rule's in-sample score: the blocks' own scores' mean less one
// standard error, as `--select robust` treats folds.
double robust_over(const std::vector<Summary>& row, const std::vector<bool>& side, Score kind) {
  Summary folds;
  for (size_t b = 0; b < side.size(); ++b) {
    if (side[b]) folds.merge({1, row[b].score(kind), 0});
  }
  if (!std::isfinite(folds.mean)) return folds.mean;
  const double se = folds.n > 1 ? std::sqrt(folds.m2 / (folds.n - 1) / folds.n) : 0;
  return folds.mean - se;
}

void check_shape(const Series& scores, int blocks) {
  if (blocks < 2 || blocks % 2 != 0) {
    throw std::invalid_argument("CSCV needs an even number of blocks >= 2, got " +
                                std::to_string(blocks));
  }
  if (scores.size() < 2) {
    throw std::invalid_argument("CSCV needs at least 2 trials with series, got " +
                                std::to_string(scores.size()));
  }
  const size_t t = scores.front().size();
  for (const auto& row : scores) {
    if (row.size() != t) throw std::invalid_argument("CSCV needs series of equal length");
  }
  if (t < 2 * static_cast<size_t>(blocks)) {
    throw std::invalid_argument("CSCV with " + std::to_string(blocks) + " blocks needs at least " +
                                std::to_string(2 * blocks) + " common dates, got " +
                                std::to_string(t));
  }
}

}  // namespace

std::vector<Split> cscv_splits(int blocks) {
  std::vector<Split> splits;
  if (blocks < 2 || blocks % 2 != 0) return splits;
  // The permutations of S/2 falses and S/2 trues, each combination once.
  std::vector<bool> in(blocks, false);
  std::fill(in.begin() + blocks / 2, in.end(), true);
  do {
    std::vector<bool> out(blocks);
    for (int b = 0; b < blocks; ++b) out[b] = !in[b];
    splits.push_back({in, out});
  } while (std::next_permutation(in.begin(), in.end()));
  return splits;
}

Pbo probability_of_backtest_overfitting(const Series& scores, int blocks, CscvRule rule) {
  check_shape(scores, blocks);
  return probability_of_backtest_overfitting(scores, blocks, cscv_splits(blocks), rule);
}

Pbo probability_of_backtest_overfitting(const Series& scores, int blocks,
                                        const std::vector<Split>& splits, CscvRule rule) {
  check_shape(scores, blocks);
  const size_t trials = scores.size();
  const BlockSummaries sums = block_summaries(scores, blocks);
  Pbo result;
  result.blocks = blocks;
  result.trials = static_cast<int>(trials);
  double overfit = 0;
  std::vector<double> is(trials), oos(trials);
  for (const Split& split : splits) {
    for (size_t i = 0; i < trials; ++i) {
      is[i] = rule.robust ? robust_over(sums[i], split.in, rule.score)
                          : score_over(sums[i], split.in, rule.score);
      oos[i] = score_over(sums[i], split.out, rule.score);
    }
    const size_t best = std::max_element(is.begin(), is.end()) - is.begin();
    const double rank = average_ranks(oos)[best];
    const double omega = rank / (trials + 1.0);
    result.logits.push_back(std::log(omega / (1 - omega)));
    // Ranks are multiples of 1/2, so the median rank (N + 1) / 2 is exact.
    if (2 * rank < trials + 1.0) overfit += 1;
    if (2 * rank == trials + 1.0) overfit += 0.5;
  }
  result.pbo = result.logits.empty() ? 0 : overfit / result.logits.size();
  return result;
}

std::vector<int> histogram(const std::vector<double>& values, int bins, double lo, double hi) {
  std::vector<int> counts(std::max(bins, 1), 0);
  for (double v : values) {
    const double at = (v - lo) / (hi - lo) * bins;
    const int bin =
        std::isnan(at) ? 0 : static_cast<int>(std::clamp(std::floor(at), 0.0, bins - 1.0));
    ++counts[bin];
  }
  return counts;
}

}  // namespace hpo::stats
