// How many independent trials a sweep's correlated trials are worth, for the
// Deflated Sharpe Ratio's N.
#ifndef HPO_STATS_EFFECTIVE_TRIALS_H_
#define HPO_STATS_EFFECTIVE_TRIALS_H_

#include <vector>

namespace hpo::stats {

// One row per trial, one column per date (rows of equal length).
using Series = std::vector<std::vector<double>>;

// The mean Pearson correlation over all pairs of rows; rows with no spread
// take no part. NaN with fewer than two such rows. O(rows x dates): the sum
// of all pairwise correlations is |sum z_i|^2 - k for the k rows z_i
// centred and scaled to unit length, so no correlation matrix is built.
double mean_pairwise_correlation(const Series& rows);

// N_eff = rho + (1 - rho) N, clamped to [1, N]: N trials whose series have
// mean pairwise correlation rho count as N_eff independent ones (1 when
// they are all the same, N when uncorrelated). This is the "average
// correlation" interpolation used with the DSR by Lopez de Prado, and the
// Kish-like effective size of N equicorrelated tests. A NaN rho (too few
// series to tell) leaves N as it is.
double effective_trials(double n, double rho);

}  // namespace hpo::stats

#endif  // HPO_STATS_EFFECTIVE_TRIALS_H_
