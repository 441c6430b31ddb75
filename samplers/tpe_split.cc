#include "samplers/tpe_split.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace hpo {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Ranked lexicographically, smaller first: (step key, sign * value).
struct Rank {
  double step;
  double value;
  bool operator<(const Rank& o) const {
    return step < o.step || (step == o.step && value < o.value);
  }
  bool operator==(const Rank& o) const { return step == o.step && value == o.value; }
};

// nullopt for trials TPE does not learn from.
std::optional<Rank> rank_of(const TrialView& t, double sign, bool constant_liar) {
  switch (t.state) {
    case TrialState::kComplete:
      if (!t.value || std::isnan(*t.value)) return std::nullopt;
      return Rank{-kInf, sign * *t.value};
    case TrialState::kPruned: {
      if (t.intermediate.empty()) return Rank{1, 0};
      const auto& [step, value] = *t.intermediate.rbegin();
      return Rank{-static_cast<double>(step), std::isnan(value) ? kInf : sign * value};
    }
    case TrialState::kRunning:
      if (!constant_liar) return std::nullopt;
      return Rank{kInf, kInf};
    case TrialState::kFail:
      // An out-of-memory failure says the region is infeasible: rank it
      // worst, so TPE's l(x)/g(x) steers away from it. Other failures
      // teach nothing, as in Optuna.
      if (!t.infeasible) return std::nullopt;
      return Rank{kInf, kInf};
    default:
      return std::nullopt;
  }
}

}  // namespace

int n_below(int n_finished, double gamma, TpeSplitRule rule) {
  const double n = rule == TpeSplitRule::kSqrt ? std::sqrt(static_cast<double>(n_finished)) : n_finished;
  return std::min(static_cast<int>(std::ceil(gamma * n)), 25);
}

TpeSplit split_trials(const std::map<int, TrialView>& history, Direction direction,
                      bool constant_liar, double gamma, TpeSplitRule rule) {
  const double sign = direction == Direction::kMinimize ? 1.0 : -1.0;
  TpeSplit split;
  std::vector<Rank> ranks;
  for (const auto& [number, trial] : history) {
    const auto rank = rank_of(trial, sign, constant_liar);
    if (!rank) continue;
    split.trials.push_back(&trial);
    ranks.push_back(*rank);
    split.loss.push_back(trial.state == TrialState::kComplete ? sign * *trial.value : kNaN);
    if (trial.state != TrialState::kRunning) ++split.n_finished;
  }
  // Only the best few need ordering; the trial's position breaks ties.
  std::vector<std::pair<Rank, int>> order;
  order.reserve(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) order.push_back({ranks[i], static_cast<int>(i)});
  const size_t cut = std::min(order.size(), static_cast<size_t>(n_below(split.n_finished, gamma, rule)));
  // One more than the cut: the best of "above" sets the threshold.
  const size_t sorted = std::min(order.size(), cut + 1);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(sorted), order.end());
  split.threshold = sorted > cut ? split.loss[static_cast<size_t>(order[cut].second)] : kNaN;
  std::vector<bool> is_below(order.size());
  for (size_t i = 0; i < cut; ++i) is_below[static_cast<size_t>(order[i].second)] = true;
  for (size_t i = 0; i < order.size(); ++i) {
    (is_below[i] ? split.below : split.above).push_back(static_cast<int>(i));
  }
  return split;
}

}  // namespace hpo
