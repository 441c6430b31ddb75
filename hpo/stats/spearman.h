// Spearman's rank correlation.
#ifndef HPO_STATS_SPEARMAN_H_
#define HPO_STATS_SPEARMAN_H_

#include <vector>

namespace hpo::stats {

// 1-based ranks; tied values share the mean of their ranks.
std::vector<double> average_ranks(const std::vector<double>& x);

// Pearson correlation; NaN when a side is constant or n < 2.
double pearson(const std::vector<double>& x, const std::vector<double>& y);

// Pearson correlation of the average ranks (as scipy.stats.spearmanr).
// x and y have equal length; NaN when n < 2 or a side is all ties.
double spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace hpo::stats

#endif  // HPO_STATS_SPEARMAN_H_
