// Spearman's rank correlation, for the sweep statistics: hpo/ranks/ranks.h's,
// under the stats names.
#ifndef HPO_STATS_SPEARMAN_H_
#define HPO_STATS_SPEARMAN_H_

#include "hpo/ranks/ranks.h"

namespace hpo::stats {

using ranks::average_ranks;
using ranks::pearson;
using ranks::spearman;

}  // namespace hpo::stats

#endif  // HPO_STATS_SPEARMAN_H_
