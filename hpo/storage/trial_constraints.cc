#include "hpo/storage/trial_constraints.h"

#include <algorithm>
#include <limits>
#include <string>

namespace hpo {

namespace {

double constraint_value(const nlohmann::json& v) {
  return v.is_number() ? v.get<double>() : std::numeric_limits<double>::infinity();
}

}  // namespace

std::vector<double> trial_constraints(const Attrs& system_attrs) {
  std::vector<double> out;
  const auto list = system_attrs.find(kConstraintsAttr);
  if (list != system_attrs.end() && list->second.is_array()) {
    for (const auto& v : list->second) out.push_back(constraint_value(v));
  }
  const std::string prefix = std::string(kConstraintsAttr) + ":";
  for (auto it = system_attrs.lower_bound(prefix);
       it != system_attrs.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    out.push_back(constraint_value(it->second));
  }
  return out;
}

bool has_constraints(const std::vector<TrialRecord>& trials) {
  return std::any_of(trials.begin(), trials.end(), [](const TrialRecord& t) {
    return !trial_constraints(t.system_attrs).empty();
  });
}

bool is_feasible(const std::vector<double>& constraints) {
  return std::all_of(constraints.begin(), constraints.end(), [](double c) { return c <= 0.0; });
}

}  // namespace hpo
