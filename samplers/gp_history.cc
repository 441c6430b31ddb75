#include "samplers/gp_history.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "samplers/gp_targets.h"

namespace hpo {

namespace {

Eigen::MatrixXd stack(const std::vector<Eigen::VectorXd>& rows, size_t dims) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(dims));
  for (size_t i = 0; i < rows.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = rows[i];
  return out;
}

bool counts_as_worst(const TrialView& t) {
  return t.state == TrialState::kPruned || (t.state == TrialState::kFail && t.infeasible);
}

}  // namespace

GpHistory gp_history(const std::map<int, TrialView>& trials, const GpSpace& space,
                     Direction direction, int asking) {
  const double sign = direction == Direction::kMaximize ? 1.0 : -1.0;
  std::optional<double> worst;
  for (const auto& [number, t] : trials) {
    if (number == asking || t.state != TrialState::kComplete || !t.value ||
        !std::isfinite(*t.value))
      continue;
    worst = std::min(worst.value_or(HUGE_VAL), sign * *t.value);
  }
  std::vector<Eigen::VectorXd> observed, pending;
  std::vector<double> values, sources;
  Eigen::Index n_prior = 0;
  for (const auto& [number, t] : trials) {
    if (number == asking) continue;
    const auto point = space.encode(t.params);
    if (!point) continue;
    if (t.state == TrialState::kRunning || t.state == TrialState::kWaiting) {
      pending.push_back(*point);
      continue;
    }
    std::optional<double> value;
    if (t.state == TrialState::kComplete && t.value && std::isfinite(*t.value))
      value = sign * *t.value;
    if (counts_as_worst(t)) value = worst;
    if (!value) continue;
    observed.push_back(*point);
    values.push_back(*value);
    sources.push_back(number < 0 ? std::max(1, t.source) : 0);
    n_prior += number < 0;
  }
  const Eigen::VectorXd raw =
      Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
  return {
      stack(observed, space.size()),
      gp_targets(raw),
      raw,
      stack(pending, space.size()),
      n_prior,
      Eigen::Map<const Eigen::VectorXd>(sources.data(), static_cast<Eigen::Index>(sources.size()))};
}

}  // namespace hpo
