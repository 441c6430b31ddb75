#include "hpo/analysis/fanova.h"

#include <algorithm>
#include <map>

namespace hpo {

namespace {

// A leaf as a box in the search space, and its prediction.
struct Leaf {
  std::vector<double> low, high;
  double value = 0;
};

void collect_leaves(const RegressionTree& tree, int node, Leaf box, std::vector<Leaf>& leaves) {
  const TreeNode& n = tree.nodes[node];
  if (n.feature < 0) {
    box.value = n.value;
    leaves.push_back(std::move(box));
    return;
  }
  Leaf left = box;
  left.high[n.feature] = std::min(left.high[n.feature], n.threshold);
  box.low[n.feature] = std::max(box.low[n.feature], n.threshold);
  if (left.high[n.feature] > left.low[n.feature])
    collect_leaves(tree, n.left, std::move(left), leaves);
  if (box.high[n.feature] > box.low[n.feature])
    collect_leaves(tree, n.right, std::move(box), leaves);
}

double fraction(const Leaf& leaf, const FeatureDomain& d, size_t f) {
  return (leaf.high[f] - leaf.low[f]) / (d.high - d.low);
}

// The variance, over feature f uniform on its domain, of the tree's mean
// prediction with every other feature averaged out: the marginal is
// constant between the leaves' bounds on f, so sum it piece by piece.
double marginal_variance(const std::vector<Leaf>& leaves, const std::vector<FeatureDomain>& domains,
                         size_t f, double mean) {
  // Each leaf adds value * (its share of the other features) over its
  // interval of f: a difference array over the sorted bounds.
  std::map<double, double> delta;
  for (const Leaf& leaf : leaves) {
    double others = leaf.value;
    for (size_t k = 0; k < domains.size(); ++k) {
      if (k != f) others *= fraction(leaf, domains[k], k);
    }
    delta[leaf.low[f]] += others;
    delta[leaf.high[f]] -= others;
  }
  double level = 0, previous = domains[f].low, sum_sq = 0;
  for (const auto& [at, change] : delta) {
    sum_sq += level * level * (at - previous);
    level += change;
    previous = at;
  }
  return sum_sq / (domains[f].high - domains[f].low) - mean * mean;
}

}  // namespace

std::vector<double> tree_variance_fractions(const RegressionTree& tree,
                                            const std::vector<FeatureDomain>& domains) {
  Leaf whole;
  for (const auto& d : domains) {
    whole.low.push_back(d.low);
    whole.high.push_back(d.high);
  }
  std::vector<Leaf> leaves;
  collect_leaves(tree, 0, whole, leaves);
  double mean = 0, mean_sq = 0;
  for (const Leaf& leaf : leaves) {
    double volume = 1;
    for (size_t k = 0; k < domains.size(); ++k) volume *= fraction(leaf, domains[k], k);
    mean += leaf.value * volume;
    mean_sq += leaf.value * leaf.value * volume;
  }
  const double total = mean_sq - mean * mean;
  std::vector<double> fractions(domains.size(), 0.0);
  if (total <= 1e-14 * std::max(1.0, mean_sq))
    return fractions;  // a constant tree explains nothing
  for (size_t f = 0; f < domains.size(); ++f) {
    fractions[f] = std::max(0.0, marginal_variance(leaves, domains, f, mean)) / total;
  }
  return fractions;
}

std::vector<Importance> fanova_importances(const std::vector<FeatureDomain>& domains,
                                           const std::vector<std::vector<double>>& x,
                                           const std::vector<double>& y,
                                           const ForestOptions& options) {
  std::vector<double> sums(domains.size(), 0.0);
  for (const RegressionTree& tree : fit_random_forest(x, y, options)) {
    const auto fractions = tree_variance_fractions(tree, domains);
    for (size_t f = 0; f < sums.size(); ++f) sums[f] += fractions[f];
  }
  double total = 0;
  for (double s : sums) total += s;
  std::vector<Importance> result;
  for (size_t f = 0; f < domains.size(); ++f)
    result.push_back({domains[f].name, total > 0 ? sums[f] / total : 0.0});
  std::stable_sort(result.begin(), result.end(), [](const Importance& a, const Importance& b) {
    return a.importance > b.importance;
  });
  return result;
}

}  // namespace hpo
