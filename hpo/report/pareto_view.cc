#include "hpo/report/pareto_view.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "hpo/storage/trial_constraints.h"
#include "samplers/pareto.h"

namespace hpo {

namespace {

std::string number_text(double v) {
  std::ostringstream out;
  out.precision(4);
  out << v;
  return out.str();
}

// The trial of `front` whose score is smallest, ties to the lower number
// (the front is by number).
size_t argmin(const std::vector<double>& scores) {
  return static_cast<size_t>(std::min_element(scores.begin(), scores.end()) - scores.begin());
}

}  // namespace

bool has_all_values(const StudyView& view, const TrialRecord& trial) {
  return trial.state == TrialState::kComplete &&
         trial.values.size() == objective_directions(view.study).size();
}

bool trial_feasible(const TrialRecord& trial) {
  return is_feasible(trial_constraints(trial.system_attrs));
}

std::vector<const TrialRecord*> pareto_trials(const StudyView& view) {
  const auto directions = objective_directions(view.study);
  std::vector<const TrialRecord*> candidates;
  Losses losses;
  for (const auto& t : view.trials) {
    if (!has_all_values(view, t) || !trial_feasible(t)) continue;
    candidates.push_back(&t);
    losses.push_back(to_losses(t.values, directions));
  }
  std::vector<const TrialRecord*> front;
  for (size_t i : pareto_front(losses)) front.push_back(candidates[i]);
  return front;
}

namespace {

// Scales column `k` of `losses` to [0, 1], 0 the best. The finite values
// spread over the column's finite range; an infinite one lies beyond all of
// them (Optuna stores +-inf values), so -inf takes 0 and +inf takes 1 and the
// finite ones keep [0.25, 1], [0, 0.75] or [0.25, 0.75] of the scale. Without
// this an infinite bound made every scaled value NaN, and the picks argmin
// over NaN: always the front's first trial.
void scale_column(Losses& losses, size_t k) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  bool below = false;  // some loss is -inf
  bool above = false;  // some loss is +inf
  for (const auto& l : losses) {
    below = below || l[k] == -std::numeric_limits<double>::infinity();
    above = above || l[k] == std::numeric_limits<double>::infinity();
    if (!std::isfinite(l[k])) continue;
    lo = std::min(lo, l[k]);
    hi = std::max(hi, l[k]);
  }
  const double from = below ? 0.25 : 0.0;
  const double to = above ? 0.75 : 1.0;
  for (auto& l : losses) {
    if (!std::isfinite(l[k])) {
      l[k] = l[k] > 0 ? 1.0 : 0.0;
      continue;
    }
    const double unit = hi > lo ? (l[k] - lo) / (hi - lo) : 0.0;
    l[k] = from + unit * (to - from);
  }
}

}  // namespace

std::vector<std::vector<double>> normalized_losses(const StudyView& view,
                                                   const std::vector<const TrialRecord*>& front) {
  const auto directions = objective_directions(view.study);
  Losses losses;
  for (const TrialRecord* t : front) losses.push_back(to_losses(t->values, directions));
  for (size_t k = 0; k < directions.size(); ++k) scale_column(losses, k);
  return losses;
}

FrontPick pick_knee(const StudyView& view, const std::vector<const TrialRecord*>& front) {
  if (front.empty()) return {};
  std::vector<double> distance;
  for (const auto& l : normalized_losses(view, front)) {
    double sum = 0;
    for (double x : l) sum += x * x;
    distance.push_back(std::sqrt(sum));
  }
  const size_t i = argmin(distance);
  return {front[i],
          "the knee of the front: nearest the ideal point of the objectives scaled to "
          "[0, 1] over the front (distance " +
              number_text(distance[i]) + ")"};
}

FrontPick pick_weighted(const StudyView& view, const std::vector<const TrialRecord*>& front,
                        const std::vector<double>& weights) {
  if (front.empty()) return {};
  std::vector<double> score;
  for (const auto& l : normalized_losses(view, front)) {
    double sum = 0;
    for (size_t k = 0; k < l.size(); ++k) sum += weights.at(k) * l[k];
    score.push_back(sum);
  }
  const size_t i = argmin(score);
  std::string w;
  for (size_t k = 0; k < weights.size(); ++k)
    w += (k ? ", " : "") + view.metrics.at(k) + " " + number_text(weights[k]);
  return {front[i],
          "the smallest weighted sum of the objectives scaled to [0, 1] over the front, "
          "0 the best (weights " +
              w + "; its sum " + number_text(score[i]) + ")"};
}

std::set<int> pareto_numbers(const StudyView& view) {
  std::set<int> numbers;
  for (const TrialRecord* t : pareto_trials(view)) numbers.insert(t->number);
  return numbers;
}

std::string goals_text(const StudyView& view) {
  const auto directions = objective_directions(view.study);
  std::string text;
  for (size_t k = 0; k < directions.size() && k < view.metrics.size(); ++k) {
    text += std::string(k ? ", " : "") +
            (directions[k] == Direction::kMaximize ? "maximize " : "minimize ") + view.metrics[k];
  }
  return text;
}

std::string objectives_text(const StudyView& view, const TrialRecord& trial) {
  std::string text;
  for (size_t k = 0; k < trial.values.size() && k < view.metrics.size(); ++k)
    text += (k ? ", " : "") + view.metrics[k] + " " + number_text(trial.values[k]);
  return text;
}

}  // namespace hpo
