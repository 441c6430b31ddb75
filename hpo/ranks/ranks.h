// Average ranks and Spearman's rank correlation, for the three places that
// compare orderings: the sweep statistics (hpo/stats), warm start's agreement
// between studies (samplers/prior_observations.cc) and the trainer's daily
// RankIC (trainer/metrics.cc). A library of its own, free of dependencies, so
// that the samplers (which hpo_stats links) and the trainer built alone
// (HPO_TRAINER_ONLY) can both use it.
#ifndef HPO_RANKS_RANKS_H_
#define HPO_RANKS_RANKS_H_

#include <cstddef>
#include <vector>

namespace hpo::ranks {

// Positions of x from the lowest value to the highest (the highest first
// with `descending`); equal values in input order, as a stable sort leaves
// them.
std::vector<size_t> stable_order(const std::vector<double>& x, bool descending = false);

// 1-based ranks; tied values share the mean of their ranks.
std::vector<double> average_ranks(const std::vector<double>& x);

// Pearson correlation; NaN when a side is constant or n < 2.
double pearson(const std::vector<double>& x, const std::vector<double>& y);

// Pearson correlation of the average ranks (as scipy.stats.spearmanr).
// x and y have equal length; NaN when n < 2 or a side is all ties.
double spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace hpo::ranks

#endif  // HPO_RANKS_RANKS_H_
