// A random forest of regression trees (CART, squared error), as
// scikit-learn's RandomForestRegressor grows it by default: each tree on a
// bootstrap sample, every feature tried at every split, grown until leaves
// are pure or too small. fANOVA reads its trees' leaves as boxes.
#ifndef HPO_ANALYSIS_RANDOM_FOREST_H_
#define HPO_ANALYSIS_RANDOM_FOREST_H_

#include <cstdint>
#include <vector>

namespace hpo {

struct ForestOptions {
  int trees = 64;
  int max_depth = 64;
  int min_samples_split = 2;
  int min_samples_leaf = 1;
  uint64_t seed = 0;
};

// One node of a tree: a split (feature, threshold: x[feature] <= threshold
// goes left) or a leaf (feature < 0) holding the mean of its samples.
struct TreeNode {
  int feature = -1;
  double threshold = 0;
  int left = -1;
  int right = -1;
  double value = 0;
};

struct RegressionTree {
  std::vector<TreeNode> nodes;  // nodes[0] is the root
  double predict(const std::vector<double>& x) const;
};

// `x`: one row of features per sample; `y`: the targets. Throws
// std::invalid_argument when they are empty or disagree in size.
std::vector<RegressionTree> fit_random_forest(const std::vector<std::vector<double>>& x,
                                              const std::vector<double>& y,
                                              const ForestOptions& options);

}  // namespace hpo

#endif  // HPO_ANALYSIS_RANDOM_FOREST_H_
