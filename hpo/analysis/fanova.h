// Parameter importance by fANOVA (Hutter et al., 2014), the method of
// Optuna's default FanovaImportanceEvaluator up to Optuna 4: fit a random
// forest to (params -> objective), then, in each tree, split the variance
// of its prediction over the search space into the part each parameter
// explains on its own (its first-order marginal). A parameter's importance
// is that fraction, averaged over the trees, normalized to sum to 1.
#ifndef HPO_ANALYSIS_FANOVA_H_
#define HPO_ANALYSIS_FANOVA_H_

#include <string>
#include <vector>

#include "hpo/analysis/random_forest.h"

namespace hpo {

// A parameter's domain as the forest sees it: an interval of the encoded
// value (log parameters as their logarithm, a choice as its index, with the
// interval widened by half a unit around integers and indices, so every
// integer and every choice has equal weight).
struct FeatureDomain {
  std::string name;
  double low = 0;
  double high = 1;
};

struct Importance {
  std::string name;
  double importance = 0;  // in [0, 1]; all sum to 1 (or all 0 when y is constant)
};

// Importances, most important first (ties: in `domains` order). `x` rows
// hold the encoded values, one per domain.
std::vector<Importance> fanova_importances(const std::vector<FeatureDomain>& domains,
                                           const std::vector<std::vector<double>>& x,
                                           const std::vector<double>& y,
                                           const ForestOptions& options = {});

// One tree's first-order variance fractions, per feature (exposed for tests).
std::vector<double> tree_variance_fractions(const RegressionTree& tree,
                                            const std::vector<FeatureDomain>& domains);

}  // namespace hpo

#endif  // HPO_ANALYSIS_FANOVA_H_
