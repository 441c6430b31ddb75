#include "hpo/analysis/random_forest.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace hpo {

namespace {

struct Split {
  int feature = -1;
  double threshold = 0;
  double score = 0;  // the drop in summed squared error
};

class TreeBuilder {
 public:
  TreeBuilder(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
              const ForestOptions& o)
      : x_(x), y_(y), options_(o) {}

  RegressionTree build(std::vector<size_t> rows) {
    tree_.nodes.clear();
    grow(rows, 0);
    return std::move(tree_);
  }

 private:
  int grow(std::vector<size_t>& rows, int depth) {
    const int id = static_cast<int>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    double sum = 0;
    for (size_t r : rows) sum += y_[r];
    tree_.nodes[id].value = sum / static_cast<double>(rows.size());
    if (depth >= options_.max_depth || static_cast<int>(rows.size()) < options_.min_samples_split)
      return id;
    const Split split = best_split(rows);
    if (split.feature < 0) return id;
    std::vector<size_t> left, right;
    for (size_t r : rows) (x_[r][split.feature] <= split.threshold ? left : right).push_back(r);
    rows.clear();
    rows.shrink_to_fit();
    const int l = grow(left, depth + 1);
    const int rr = grow(right, depth + 1);
    tree_.nodes[id].feature = split.feature;
    tree_.nodes[id].threshold = split.threshold;
    tree_.nodes[id].left = l;
    tree_.nodes[id].right = rr;
    return id;
  }

  // The split with the largest drop in squared error over every feature
  // and every threshold between two distinct values (at their midpoint).
  Split best_split(const std::vector<size_t>& rows) const {
    Split best;
    const size_t n = rows.size();
    const size_t min_leaf = static_cast<size_t>(options_.min_samples_leaf);
    double total = 0;
    for (size_t r : rows) total += y_[r];
    const double base = total * total / static_cast<double>(n);
    std::vector<size_t> order(rows);
    for (size_t f = 0; f < x_[rows[0]].size(); ++f) {
      std::sort(order.begin(), order.end(),
                [&](size_t a, size_t b) { return x_[a][f] < x_[b][f]; });
      double left_sum = 0;
      for (size_t i = 0; i + 1 < n; ++i) {
        left_sum += y_[order[i]];
        const double here = x_[order[i]][f], next = x_[order[i + 1]][f];
        if (here == next || i + 1 < min_leaf || n - i - 1 < min_leaf) continue;
        const double nl = static_cast<double>(i + 1), nr = static_cast<double>(n - i - 1);
        const double right_sum = total - left_sum;
        const double score = left_sum * left_sum / nl + right_sum * right_sum / nr - base;
        if (score > best.score + 1e-12 * std::abs(base)) {
          best = {static_cast<int>(f), here + (next - here) / 2, score};
        }
      }
    }
    return best;
  }

  const std::vector<std::vector<double>>& x_;
  const std::vector<double>& y_;
  const ForestOptions& options_;
  RegressionTree tree_;
};

}  // namespace

double RegressionTree::predict(const std::vector<double>& x) const {
  int i = 0;
  while (nodes[i].feature >= 0)
    i = x[nodes[i].feature] <= nodes[i].threshold ? nodes[i].left : nodes[i].right;
  return nodes[i].value;
}

std::vector<RegressionTree> fit_random_forest(const std::vector<std::vector<double>>& x,
                                              const std::vector<double>& y,
                                              const ForestOptions& options) {
  if (x.empty() || x.size() != y.size()) {
    throw std::invalid_argument("random forest: need as many targets as rows, and at least one");
  }
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<size_t> pick(0, x.size() - 1);
  TreeBuilder builder(x, y, options);
  std::vector<RegressionTree> forest;
  for (int t = 0; t < options.trees; ++t) {
    std::vector<size_t> rows(x.size());
    for (auto& r : rows) r = pick(rng);  // a bootstrap sample
    forest.push_back(builder.build(std::move(rows)));
  }
  return forest;
}

}  // namespace hpo
