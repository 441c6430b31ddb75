#include "samplers/tpe_split.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "samplers/numbers.h"
#include "samplers/pareto.h"

namespace hpo {

namespace {

// Ranked lexicographically, smaller first: (step key, sign * value).
struct Rank {
  double step;
  double value;
  bool operator<(const Rank& o) const {
    return step < o.step || (step == o.step && value < o.value);
  }
};

TpeRank counted(double step, double value, double loss, bool running = false) {
  TpeRank r;
  r.counts = true;
  r.running = running;
  r.step = step;
  r.value = value;
  r.loss = loss;
  return r;
}

}  // namespace

TpeRank tpe_rank(const TrialView& t, Direction direction, bool constant_liar) {
  const double sign = direction == Direction::kMinimize ? 1.0 : -1.0;
  // A finished trial that broke its constraints ranks after every complete
  // and pruned one, the least violation first, as in Optuna 5.0: its value
  // is what an unusable configuration scored.
  const bool finished = t.state == TrialState::kComplete || t.state == TrialState::kPruned;
  if (finished && !t.constraints.empty()) {
    const double v = violation(t.constraints);
    if (v > 0) return counted(2, v, kNaN);
  }
  switch (t.state) {
    case TrialState::kComplete:
      if (!t.value || std::isnan(*t.value)) return {};
      return counted(-kInf, sign * *t.value, sign * *t.value);
    case TrialState::kPruned: {
      if (t.intermediate.empty()) return counted(1, 0, kNaN);
      const auto& [step, value] = *t.intermediate.rbegin();
      return counted(-static_cast<double>(step), std::isnan(value) ? kInf : sign * value, kNaN);
    }
    case TrialState::kRunning:
      if (!constant_liar) return {};
      return counted(kInf, kInf, kNaN, true);
    case TrialState::kFail:
      // An out-of-memory failure says the region is infeasible: rank it
      // worst, so TPE's l(x)/g(x) steers away from it. Other failures
      // teach nothing, as in Optuna.
      if (!t.infeasible) return {};
      return counted(kInf, kInf, kNaN);
    default:
      return {};
  }
}

int n_below(int n_finished, double gamma, TpeSplitRule rule) {
  const double n =
      rule == TpeSplitRule::kSqrt ? std::sqrt(static_cast<double>(n_finished)) : n_finished;
  return std::min(static_cast<int>(std::ceil(gamma * n)), 25);
}

TpeSplit split_trials(const std::map<int, TrialView>& history, Direction direction,
                      bool constant_liar, double gamma, TpeSplitRule rule) {
  std::vector<TpeRank> ranks;
  std::vector<const TrialView*> trials;
  for (const auto& [number, trial] : history) {
    const TpeRank rank = tpe_rank(trial, direction, constant_liar);
    if (!rank.counts) continue;
    ranks.push_back(rank);
    trials.push_back(&trial);
  }
  TpeSplit split = split_ranked(ranks, gamma, rule);
  split.trials = std::move(trials);
  return split;
}

TpeSplit split_ranked(const std::vector<TpeRank>& ranks, double gamma, TpeSplitRule rule) {
  TpeSplit split;
  // Only the best few need ordering; the trial's position breaks ties.
  std::vector<std::pair<Rank, int>> order;
  order.reserve(ranks.size());
  split.loss.resize(ranks.size(), kNaN);
  for (size_t i = 0; i < ranks.size(); ++i) {
    const TpeRank& r = ranks[i];
    if (!r.counts) continue;
    order.push_back({Rank{r.step, r.value}, static_cast<int>(i)});
    split.loss[i] = r.loss;
    if (!r.running) ++split.n_finished;
  }
  const size_t cut =
      std::min(order.size(), static_cast<size_t>(n_below(split.n_finished, gamma, rule)));
  // One more than the cut: the best of "above" sets the threshold.
  const size_t sorted = std::min(order.size(), cut + 1);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(sorted),
                    order.end());
  split.threshold = sorted > cut ? split.loss[static_cast<size_t>(order[cut].second)] : kNaN;
  std::vector<bool> is_below(ranks.size());
  for (size_t i = 0; i < cut; ++i) is_below[static_cast<size_t>(order[i].second)] = true;
  split.below.reserve(cut);
  split.above.reserve(order.size() - cut);
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].counts) (is_below[i] ? split.below : split.above).push_back(static_cast<int>(i));
  }
  return split;
}

}  // namespace hpo
