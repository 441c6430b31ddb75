#include "samplers/motpe_sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "samplers/hypervolume.h"
#include "samplers/pareto.h"

namespace hpo {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTiny = 1e-12;

// The good trials' weights: each its exclusive hypervolume over the best
// one's (at least kTiny); infeasible ones kTiny.
std::vector<double> share_weights(const Losses& losses, const std::vector<double>& violations) {
  Losses feasible;
  std::vector<size_t> where;
  for (size_t i = 0; i < losses.size(); ++i) {
    if (violations[i] == 0) {
      feasible.push_back(losses[i]);
      where.push_back(i);
    }
  }
  std::vector<double> w(losses.size(), kTiny);
  if (feasible.empty()) return w;
  const auto share = hypervolume_contributions(feasible, nadir_reference(feasible));
  const double top = *std::max_element(share.begin(), share.end());
  for (size_t k = 0; k < where.size(); ++k)
    w[where[k]] = top > 0 ? std::max(share[k] / top, kTiny) : 1.0;
  return w;
}

}  // namespace

MotpeSampler::MotpeSampler(uint64_t seed, std::vector<Direction> directions, TpeOptions options)
    : TpeSampler(seed, directions.empty() ? Direction::kMinimize : directions.front(), options),
      directions_(std::move(directions)) {}

void MotpeSampler::tell(const TrialView& trial) {
  if (!trial.value && !trial.values.empty()) {
    // TPE's history counts a COMPLETE trial by its `value`; the first
    // objective stands in, as TrialView promises, should a caller leave it out.
    TrialView copy = trial;
    copy.value = trial.values.front();
    TpeSampler::tell(copy);
  } else {
    TpeSampler::tell(trial);
  }
  const size_t m = directions_.size(), at = static_cast<size_t>(trial.number);
  if (complete_.size() <= at) {
    complete_.resize(at + 1);
    violation_.resize(at + 1);
    losses_.resize((at + 1) * m);
  }
  const auto l = trial_losses(trial, directions_);
  complete_[at] = l.has_value();
  violation_[at] = violation(trial.constraints);
  if (l) std::copy(l->begin(), l->end(), losses_.begin() + static_cast<std::ptrdiff_t>(at * m));
}

TpeSplit MotpeSampler::split() const {
  const auto& ranks = rows().ranks();
  const auto& numbers = rows().numbers();
  const size_t m = directions_.size();
  TpeSplit s;
  s.loss.assign(ranks.size(), kNaN);
  s.threshold = kNaN;
  // The COMPLETE rows with values: only they can be good.
  std::vector<int> complete;
  std::vector<double> flat, violations;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (!ranks[i].counts || ranks[i].running) continue;
    ++s.n_finished;
    const auto at = static_cast<size_t>(numbers[i]);
    if (!complete_[at]) continue;
    complete.push_back(static_cast<int>(i));
    flat.insert(flat.end(), losses_.begin() + static_cast<std::ptrdiff_t>(at * m),
                losses_.begin() + static_cast<std::ptrdiff_t>((at + 1) * m));
    violations.push_back(violation_[at]);
  }
  const size_t cut =
      std::min(complete.size(),
               static_cast<size_t>(n_below(s.n_finished, options().gamma, options().split)));
  const std::vector<int> rank = nondominated_ranks(flat, m, violations, cut);
  const auto point = [&](size_t k) {
    return std::vector<double>(flat.begin() + static_cast<std::ptrdiff_t>(k * m),
                               flat.begin() + static_cast<std::ptrdiff_t>((k + 1) * m));
  };
  std::map<int, std::vector<size_t>> fronts;
  for (size_t k = 0; k < rank.size(); ++k) {
    if (rank[k] >= 0) fronts[rank[k]].push_back(k);
  }
  std::vector<size_t> good;
  for (const auto& [r, front] : fronts) {
    if (good.size() + front.size() <= cut) {
      good.insert(good.end(), front.begin(), front.end());
      continue;
    }
    const size_t room = cut - good.size();
    if (violations[front.front()] > 0) {
      good.insert(good.end(), front.begin(), front.begin() + static_cast<std::ptrdiff_t>(room));
    } else {
      Losses points;
      for (size_t k : front) points.push_back(point(k));
      for (size_t k : select_by_hypervolume(points, room, nadir_reference(points)))
        good.push_back(front[k]);
    }
    break;
  }
  Losses good_losses;
  std::vector<double> good_violations;
  for (size_t k : good) {
    good_losses.push_back(point(k));
    good_violations.push_back(violations[k]);
  }
  const std::vector<double> w = share_weights(good_losses, good_violations);
  s.below_weight.assign(ranks.size(), 1.0);
  std::vector<bool> is_good(ranks.size());
  for (size_t j = 0; j < good.size(); ++j) {
    const auto row = static_cast<size_t>(complete[good[j]]);
    is_good[row] = true;
    s.below_weight[row] = w[j];
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].counts) (is_good[i] ? s.below : s.above).push_back(static_cast<int>(i));
  }
  return s;
}

}  // namespace hpo
