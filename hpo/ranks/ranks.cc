#include "hpo/ranks/ranks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace hpo::ranks {

std::vector<size_t> stable_order(const std::vector<double>& x, bool descending) {
  const auto before = [descending](double a, double b) { return descending ? a > b : a < b; };
  std::vector<size_t> order(x.size());
  if (std::none_of(x.begin(), x.end(), [](double v) { return std::isnan(v); })) {
    // Sorting (value, position) pairs reads memory in order, about twice as
    // fast as sorting positions through the values (the trainer ranks every
    // day's predictions every epoch); the position breaks ties as a stable
    // sort would. NaN has no order, which std::sort would rely on.
    std::vector<std::pair<double, size_t>> pairs(x.size());
    for (size_t i = 0; i < x.size(); ++i) pairs[i] = {x[i], i};
    std::sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) {
      return before(a.first, b.first) || (a.first == b.first && a.second < b.second);
    });
    for (size_t i = 0; i < x.size(); ++i) order[i] = pairs[i].second;
    return order;
  }
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return before(x[a], x[b]); });
  return order;
}

std::vector<double> average_ranks(const std::vector<double>& x) {
  const std::vector<size_t> order = stable_order(x);
  std::vector<double> ranks(x.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    const double rank = (i + j) / 2.0 + 1;  // mean of the 1-based ranks i+1..j+1
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  const double mx = std::accumulate(x.begin(), x.begin() + n, 0.0) / n;
  const double my = std::accumulate(y.begin(), y.begin() + n, 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0 || syy <= 0) return std::numeric_limits<double>::quiet_NaN();
  return sxy / std::sqrt(sxx * syy);
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  return pearson(average_ranks(x), average_ranks(y));
}

}  // namespace hpo::ranks
