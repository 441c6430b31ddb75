#include "hpo/report/robust_select.h"

#include <algorithm>
#include <cmath>

#include "hpo/report/pareto_view.h"
#include "hpo/storage/trial_constraints.h"

namespace hpo {

std::optional<SelectRule> parse_select_rule(const std::string& name) {
  if (name == "best") return SelectRule::kBestValue;
  if (name == "robust") return SelectRule::kRobust;
  return std::nullopt;
}

std::string to_string(SelectRule rule) {
  return rule == SelectRule::kRobust ? "robust: best mean over folds less one standard error"
                                     : "best validation value";
}

std::optional<double> robust_score(const StudyView& view, const TrialRecord& trial) {
  if (trial.state != TrialState::kComplete || !trial.value) return std::nullopt;
  std::vector<double> folds;
  while (true) {
    const auto it =
        trial.user_attrs.find("fold_" + std::to_string(folds.size()) + "_" + view.metric);
    if (it == trial.user_attrs.end() || !it->second.is_number()) break;
    folds.push_back(it->second.get<double>());
  }
  if (folds.empty()) return *trial.value;
  const double k = static_cast<double>(folds.size());
  double mean = 0;
  for (double f : folds) mean += f / k;
  double ss = 0;
  for (double f : folds) ss += (f - mean) * (f - mean);
  const double penalty = folds.size() > 1 ? std::sqrt(ss / (k - 1)) / std::sqrt(k) : 0;
  return view.study.direction == Direction::kMaximize ? mean - penalty : mean + penalty;
}

bool any_fold_metrics(const StudyView& view) {
  for (const auto& t : view.trials) {
    if (t.user_attrs.count("fold_0_" + view.metric)) return true;
  }
  return false;
}

std::vector<const TrialRecord*> ranked_trials(const StudyView& view, SelectRule rule, size_t k) {
  if (rule == SelectRule::kBestValue) return best_trials(view, k);
  std::vector<std::pair<double, const TrialRecord*>> scored;
  for (const auto& t : view.trials) {
    if (!trial_feasible(t)) continue;
    const auto score = robust_score(view, t);
    if (score && !std::isnan(*score)) scored.emplace_back(*score, &t);
  }
  const bool maximize = view.study.direction == Direction::kMaximize;
  std::stable_sort(scored.begin(), scored.end(), [maximize](const auto& a, const auto& b) {
    return maximize ? a.first > b.first : a.first < b.first;
  });
  std::vector<const TrialRecord*> ranked;
  for (size_t i = 0; i < scored.size() && i < k; ++i) ranked.push_back(scored[i].second);
  return ranked;
}

const TrialRecord* select_trial(const StudyView& view, SelectRule rule) {
  const auto ranked = ranked_trials(view, rule, 1);
  return ranked.empty() ? nullptr : ranked.front();
}

}  // namespace hpo
