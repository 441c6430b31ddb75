#include "hpo/stats/cscv.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "hpo/stats/spearman.h"

namespace hpo::stats {

namespace {

// Per trial and block: the count, sum and sum of squares of its returns, so
// that a block set's Sharpe ratio costs S additions, not T.
struct BlockSums {
  std::vector<double> n, sum, sum2;  // [trial * blocks + block]
};

BlockSums block_sums(const Series& returns, int blocks) {
  const size_t trials = returns.size();
  const size_t t = returns.front().size();
  BlockSums s;
  s.n.assign(trials * blocks, 0);
  s.sum.assign(trials * blocks, 0);
  s.sum2.assign(trials * blocks, 0);
  for (size_t i = 0; i < trials; ++i) {
    for (int b = 0; b < blocks; ++b) {
      const size_t from = b * t / blocks, to = (b + 1) * t / blocks;
      double sum = 0, sum2 = 0;
      for (size_t d = from; d < to; ++d) {
        sum += returns[i][d];
        sum2 += returns[i][d] * returns[i][d];
      }
      const size_t k = i * blocks + b;
      s.n[k] = static_cast<double>(to - from);
      s.sum[k] = sum;
      s.sum2[k] = sum2;
    }
  }
  return s;
}

// Each trial's Sharpe ratio over the blocks where `in` is `side`.
std::vector<double> sharpe_over(const BlockSums& s, const std::vector<bool>& in, bool side,
                                size_t trials) {
  const size_t blocks = in.size();
  std::vector<double> sharpe(trials);
  for (size_t i = 0; i < trials; ++i) {
    double n = 0, sum = 0, sum2 = 0;
    for (size_t b = 0; b < blocks; ++b) {
      if (in[b] != side) continue;
      n += s.n[i * blocks + b];
      sum += s.sum[i * blocks + b];
      sum2 += s.sum2[i * blocks + b];
    }
    const double mean = sum / n;
    const double var = (sum2 - n * mean * mean) / (n - 1);
    sharpe[i] = var > 0 ? mean / std::sqrt(var) : 0;
  }
  return sharpe;
}

void check_shape(const Series& returns, int blocks) {
  if (blocks < 2 || blocks % 2 != 0) {
    throw std::invalid_argument("CSCV needs an even number of blocks >= 2, got " +
                                std::to_string(blocks));
  }
  if (returns.size() < 2) {
    throw std::invalid_argument("CSCV needs at least 2 trials with series, got " +
                                std::to_string(returns.size()));
  }
  const size_t t = returns.front().size();
  for (const auto& row : returns) {
    if (row.size() != t) throw std::invalid_argument("CSCV needs series of equal length");
  }
  if (t < 2 * static_cast<size_t>(blocks)) {
    throw std::invalid_argument("CSCV with " + std::to_string(blocks) + " blocks needs at least " +
                                std::to_string(2 * blocks) + " common dates, got " +
                                std::to_string(t));
  }
}

}  // namespace

Pbo probability_of_backtest_overfitting(const Series& returns, int blocks) {
  check_shape(returns, blocks);
  const size_t trials = returns.size();
  const BlockSums sums = block_sums(returns, blocks);
  Pbo result;
  result.blocks = blocks;
  result.trials = static_cast<int>(trials);
  // Enumerate the in-sample halves as the permutations of S/2 trues and
  // S/2 falses, in lexicographic order (each combination once).
  std::vector<bool> in(blocks, false);
  std::fill(in.begin() + blocks / 2, in.end(), true);
  int at_or_below = 0;
  do {
    const std::vector<double> is = sharpe_over(sums, in, true, trials);
    const std::vector<double> oos = sharpe_over(sums, in, false, trials);
    const size_t best = std::max_element(is.begin(), is.end()) - is.begin();
    const double omega = average_ranks(oos)[best] / (trials + 1.0);
    const double lambda = std::log(omega / (1 - omega));
    result.logits.push_back(lambda);
    if (lambda <= 0) ++at_or_below;
  } while (std::next_permutation(in.begin(), in.end()));
  result.pbo = static_cast<double>(at_or_below) / result.logits.size();
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
