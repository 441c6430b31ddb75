// A trial's constraint values as Optuna stores them: the system attribute
// "constraints" (a list, what Optuna 3.x and hpo write and what Optuna's
// samplers read), and Optuna 5's "constraints:<name>" attributes, one per
// named constraint. Feasible when every value is <= 0.
#ifndef HPO_STORAGE_TRIAL_CONSTRAINTS_H_
#define HPO_STORAGE_TRIAL_CONSTRAINTS_H_

#include <vector>

#include "hpo/storage/storage.h"

namespace hpo {

inline constexpr const char* kConstraintsAttr = "constraints";

// The list's values, then the named ones by name; empty when the trial has
// none. A value that is not a number counts as violated (+inf).
std::vector<double> trial_constraints(const Attrs& system_attrs);

// Whether any of `trials` carries constraint values: Optuna then judges
// every trial's feasibility, and one without values is feasible.
bool has_constraints(const std::vector<TrialRecord>& trials);

bool is_feasible(const std::vector<double>& constraints);

}  // namespace hpo

#endif  // HPO_STORAGE_TRIAL_CONSTRAINTS_H_
