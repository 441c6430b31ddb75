// A study view for the Pareto tests: maximizing `a` and minimizing `b`, one
// COMPLETE trial per point (numbered in order), with constraint values where
// given.
#ifndef HPO_TESTS_UNIT_TWO_OBJECTIVE_STUDY_H_
#define HPO_TESTS_UNIT_TWO_OBJECTIVE_STUDY_H_

#include <utility>
#include <vector>

#include "hpo/report/study_view.h"

namespace hpo {

inline StudyView two_objective_study(const std::vector<std::pair<double, double>>& points,
                                     const std::vector<std::vector<double>>& constraints = {}) {
  StudyView view;
  view.study.directions = {Direction::kMaximize, Direction::kMinimize};
  view.study.direction = Direction::kMaximize;
  view.metrics = {"a", "b"};
  for (size_t i = 0; i < points.size(); ++i) {
    TrialRecord t;
    t.number = static_cast<int>(i);
    t.state = TrialState::kComplete;
    t.values = {points[i].first, points[i].second};
    t.value = points[i].first;
    if (i < constraints.size()) t.system_attrs["constraints"] = constraints[i];
    view.trials.push_back(t);
  }
  return view;
}

}  // namespace hpo

#endif  // HPO_TESTS_UNIT_TWO_OBJECTIVE_STUDY_H_
