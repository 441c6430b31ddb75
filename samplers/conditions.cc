#include "samplers/conditions.h"

#include <algorithm>

namespace hpo {

bool condition_holds(const SearchSpace& space, const ParamSpec& param,
                     const std::map<std::string, double>& values) {
  if (!param.condition) return true;
  const Condition& c = *param.condition;
  const auto parent = std::find_if(space.begin(), space.end(),
                                   [&](const ParamSpec& p) { return p.name == c.parent; });
  const auto value = values.find(c.parent);
  if (parent == space.end() || value == values.end()) return false;
  const ParamValue chosen = to_external(parent->distribution, value->second);
  return std::any_of(c.values.begin(), c.values.end(),
                     [&](const ParamValue& v) { return same_value(v, chosen); });
}

std::map<std::string, double> drop_inactive(const SearchSpace& space,
                                            std::map<std::string, double> values) {
  // Parents come first, so a child of a dropped parent is seen after it
  // and fails too: one pass settles chains.
  for (const ParamSpec& param : space) {
    if (!condition_holds(space, param, values)) values.erase(param.name);
  }
  return values;
}

bool is_conditional(const SearchSpace& space) {
  return std::any_of(space.begin(), space.end(),
                     [](const ParamSpec& p) { return p.condition.has_value(); });
}

}  // namespace hpo
