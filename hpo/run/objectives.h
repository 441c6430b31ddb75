// A study's objectives and constraints applied to a trial's final metrics:
// the values stored for each objective and the constraint values Optuna's
// samplers read (system attribute "constraints", feasible when all <= 0).
#ifndef HPO_RUN_OBJECTIVES_H_
#define HPO_RUN_OBJECTIVES_H_

#include <optional>
#include <string>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/launch/report_reader.h"
#include "hpo/storage/trial_constraints.h"  // kConstraintsAttr

namespace hpo {

struct Goals {
  std::vector<ObjectiveSpec> objectives;  // one or more, in study order
  std::vector<ConstraintConfig> constraints;
};

Goals study_goals(const StudyConfig& study);

// What a COMPLETE trial stores beyond its first objective.
struct GoalValues {
  std::vector<double> values;  // every objective's; empty in a one-objective study
  std::vector<double> constraints;  // one per bound; empty without constraints
  std::string problem;  // why the metrics cannot give them; empty when they can
};

// Reads the goals off `metrics`. A missing or NaN objective or constraint
// metric is a problem, as a missing objective is for one (verdict.h).
GoalValues goal_values(const Goals& goals, const Metrics& metrics);

// One value per bound, Optuna's way: value - max and min - value, each <= 0
// when the bound holds. nullopt when a metric is missing or NaN.
std::optional<std::vector<double>> constraint_values(
    const std::vector<ConstraintConfig>& constraints, const Metrics& metrics);

}  // namespace hpo

#endif  // HPO_RUN_OBJECTIVES_H_
