#include "samplers/pareto.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "samplers/numbers.h"

namespace hpo {

namespace {

// Whether point a of `flat` (m losses each) dominates point b.
bool dominates_flat(const double* flat, size_t m, size_t a, size_t b) {
  bool better = false;
  for (size_t k = 0; k < m; ++k) {
    if (flat[a * m + k] > flat[b * m + k]) return false;
    if (flat[a * m + k] < flat[b * m + k]) better = true;
  }
  return better;
}

// The fronts of `points` (indices into `flat`) peeled one after another:
// sorted lexicographically, a point can only be dominated by one before it,
// so each front costs one pass over the rest against the front so far.
void rank_feasible(const double* flat, size_t m, std::vector<size_t> points, size_t stop_after,
                   int& next_rank, size_t& ranked, std::vector<int>& rank) {
  std::sort(points.begin(), points.end(), [&](size_t a, size_t b) {
    const double *pa = flat + a * m, *pb = flat + b * m;
    const auto diff = std::mismatch(pa, pa + m, pb);
    return diff.first != pa + m ? *diff.first < *diff.second : a < b;
  });
  while (!points.empty() && ranked < stop_after) {
    std::vector<size_t> front, rest;
    for (size_t p : points) {
      const auto by = std::find_if(front.begin(), front.end(),
                                   [&](size_t f) { return dominates_flat(flat, m, f, p); });
      if (by == front.end()) {
        front.push_back(p);
        continue;
      }
      // Move the dominating point forward: a point that dominates one
      // often dominates the next, so most are rejected at the first try.
      std::iter_swap(front.begin() + (by - front.begin()) / 2, by);
      rest.push_back(p);
    }
    for (size_t f : front) rank[f] = next_rank;
    ++next_rank;
    ranked += front.size();
    points = std::move(rest);
  }
}

}  // namespace

std::vector<double> to_losses(const std::vector<double>& values,
                              const std::vector<Direction>& directions) {
  std::vector<double> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const bool maximize = i < directions.size() && directions[i] == Direction::kMaximize;
    out[i] = maximize ? -values[i] : values[i];
  }
  return out;
}

std::optional<std::vector<double>> trial_losses(const TrialView& trial,
                                                const std::vector<Direction>& directions) {
  if (trial.state != TrialState::kComplete) return std::nullopt;
  std::vector<double> values = trial.values;
  if (values.empty() && trial.value) values = {*trial.value};
  if (values.size() != directions.size()) return std::nullopt;
  for (double v : values) {
    if (std::isnan(v)) return std::nullopt;
  }
  return to_losses(values, directions);
}

bool dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    if (a[i] < b[i]) better = true;
  }
  return better;
}

double violation(const std::vector<double>& constraints) {
  double total = 0;
  for (double c : constraints) {
    if (std::isnan(c)) return kInf;
    if (c > 0) total += c;
  }
  return total;
}

bool constrained_dominates(const std::vector<double>& a, const std::vector<double>& a_constraints,
                           const std::vector<double>& b, const std::vector<double>& b_constraints) {
  const double va = violation(a_constraints), vb = violation(b_constraints);
  if (va == 0 && vb == 0) return dominates(a, b);
  return va < vb;
}

std::vector<int> nondominated_ranks(const Losses& losses, const Losses& constraints,
                                    size_t stop_after) {
  const size_t m = losses.empty() ? 0 : losses[0].size();
  std::vector<double> flat;
  flat.reserve(losses.size() * m);
  for (const auto& p : losses) flat.insert(flat.end(), p.begin(), p.end());
  std::vector<double> violations(losses.size(), 0.0);
  for (size_t i = 0; i < constraints.size(); ++i) violations[i] = violation(constraints[i]);
  return nondominated_ranks(flat, m, violations, stop_after);
}

std::vector<int> nondominated_ranks(const std::vector<double>& flat, size_t m,
                                    const std::vector<double>& violations, size_t stop_after) {
  const size_t n = violations.size();
  std::vector<int> rank(n, -1);
  std::vector<size_t> feasible;
  std::vector<std::pair<double, size_t>> infeasible;
  for (size_t i = 0; i < n; ++i) {
    if (violations[i] == 0)
      feasible.push_back(i);
    else
      infeasible.push_back({violations[i], i});
  }
  int next_rank = 0;
  size_t ranked = 0;
  rank_feasible(flat.data(), m, std::move(feasible), stop_after, next_rank, ranked, rank);
  // Infeasible points after every feasible one; equal violations tie.
  std::sort(infeasible.begin(), infeasible.end());
  for (size_t i = 0; i < infeasible.size(); ++i) {
    const bool new_tie = i > 0 && infeasible[i].first != infeasible[i - 1].first;
    if ((i == 0 || new_tie) && ranked >= stop_after) break;  // a tie counts whole
    if (new_tie) ++next_rank;
    rank[infeasible[i].second] = next_rank;
    ++ranked;
  }
  return rank;
}

std::vector<size_t> pareto_front(const Losses& losses) {
  const std::vector<int> rank = nondominated_ranks(losses, {}, 1);
  std::vector<size_t> front;
  for (size_t i = 0; i < rank.size(); ++i) {
    if (rank[i] == 0) front.push_back(i);
  }
  return front;
}

std::vector<double> crowding_distance(const Losses& front) {
  const size_t n = front.size();
  std::vector<double> distance(n, 0.0);
  if (n == 0) return distance;
  std::vector<size_t> order(n);
  for (size_t m = 0; m < front[0].size(); ++m) {
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return front[a][m] < front[b][m]; });
    const auto value = [&](size_t k) { return front[order[k]][m]; };
    // A loss that is the same for every point says nothing of crowding.
    if (value(0) == value(n - 1)) continue;
    // The width is the finite values' range, so that one infinite loss does
    // not flatten every other gap to 0 (1 when there is no finite range).
    size_t first = 0, last = n - 1;
    while (first < n && value(first) == -kInf) ++first;
    while (last > 0 && value(last) == kInf) --last;
    double width = first < n ? value(last) - value(first) : 0.0;
    if (!(width > 0) || std::isinf(width)) width = 1.0;
    // Beyond each end lies an infinite neighbour; equal infinities are no gap.
    for (size_t k = 0; k < n; ++k) {
      const double below = k == 0 ? -kInf : value(k - 1);
      const double above = k + 1 == n ? kInf : value(k + 1);
      distance[order[k]] += below == above ? 0.0 : (above - below) / width;
    }
  }
  return distance;
}

}  // namespace hpo
