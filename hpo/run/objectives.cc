#include "hpo/run/objectives.h"

#include <cmath>

namespace hpo {

namespace {

std::optional<double> metric(const Metrics& metrics, const std::string& name) {
  const auto it = metrics.find(name);
  if (it == metrics.end() || std::isnan(it->second)) return std::nullopt;
  return it->second;
}

}  // namespace

Goals study_goals(const StudyConfig& study) {
  Goals goals{study.objectives, study.constraints};
  if (goals.objectives.empty())
    goals.objectives = {{study.objective.metric, study.objective.direction}};
  return goals;
}

std::optional<std::vector<double>> constraint_values(
    const std::vector<ConstraintConfig>& constraints, const Metrics& metrics) {
  std::vector<double> out;
  for (const auto& c : constraints) {
    const auto v = metric(metrics, c.metric);
    if (!v) return std::nullopt;
    if (c.min) out.push_back(*c.min - *v);
    if (c.max) out.push_back(*v - *c.max);
  }
  return out;
}

GoalValues goal_values(const Goals& goals, const Metrics& metrics) {
  GoalValues out;
  if (goals.objectives.size() > 1) {
    for (const auto& o : goals.objectives) {
      const auto v = metric(metrics, o.metric);
      if (!v) {
        out.problem = "final metrics lack the objective '" + o.metric + "' (or it is NaN)";
        return out;
      }
      out.values.push_back(*v);
    }
  }
  for (const auto& c : goals.constraints) {
    if (!metric(metrics, c.metric)) {
      out.problem = "final metrics lack the constraint's metric '" + c.metric + "' (or it is NaN)";
      return out;
    }
  }
  out.constraints = *constraint_values(goals.constraints, metrics);
  return out;
}

}  // namespace hpo
