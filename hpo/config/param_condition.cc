#include "hpo/config/param_condition.h"

#include <algorithm>

#include "hpo/config/did_you_mean.h"

namespace hpo {

namespace {

const char kRule[] = "a condition's parent must be a categorical parameter defined above it";
const char kShape[] =
    "expected one parent and its value or values, such as {model: tcn} or {model: [tcn, mlp]}";

// "a -> b -> a" when following written parents from `parent` leads back to
// `child`; "" otherwise.
std::string cycle_through(const std::string& child, const std::string& parent,
                          const std::map<std::string, std::string>& parents) {
  std::string path = child + " -> " + parent;
  std::string at = parent;
  for (size_t hops = 0; hops <= parents.size(); ++hops) {
    if (at == child) return path;
    const auto next = parents.find(at);
    if (next == parents.end() || next->second.empty()) return "";
    at = next->second;
    path += " -> " + at;
  }
  return "";
}

// Why `parent`, not among the parameters above `child`, cannot be its parent.
std::string missing_parent(const std::string& child, const std::string& parent,
                           const SearchSpaceConfig& space,
                           const std::map<std::string, std::string>& parents) {
  if (const std::string cycle = cycle_through(child, parent, parents); !cycle.empty()) {
    return "condition cycle " + cycle + "; " + kRule;
  }
  const auto fixed = std::find_if(space.fixed.begin(), space.fixed.end(),
                                  [&](const auto& f) { return f.first == parent; });
  if (fixed != space.fixed.end()) return "'" + parent + "' is a fixed value; " + kRule;
  if (parents.count(parent)) return "'" + parent + "' is defined below '" + child + "'; " + kRule;
  std::vector<std::string> above;
  for (const ParamSpec& p : space.params) above.push_back(p.name);
  return "unknown parent '" + parent + "'" + did_you_mean(parent, above) + "; " + kRule;
}

// The values of `node` (one scalar or a list), each one of `choices`.
std::vector<ParamValue> condition_values(const YamlNode& node, const std::string& parent,
                                         const CategoricalDistribution& choices) {
  std::vector<YamlNode> items = node.node().IsSequence() ? node.as_list() : std::vector{node};
  if (items.empty()) node.fail("expected at least one of '" + parent + "''s choices");
  std::vector<std::string> names;
  for (const ParamValue& c : choices.choices) names.push_back(to_string(c));
  std::vector<ParamValue> values;
  for (const YamlNode& item : items) {
    const ParamValue value = item.as_value();
    const bool known = std::any_of(choices.choices.begin(), choices.choices.end(),
                                   [&](const ParamValue& c) { return same_value(c, value); });
    if (!known) {
      item.fail((item.is_null() ? "null" : item.describe()) + " is not a choice of '" + parent +
                "' (" + join_names(names) + ")" + did_you_mean(to_string(value), names) +
                ", so the condition could never hold");
    }
    values.push_back(value);
  }
  return values;
}

}  // namespace

std::map<std::string, std::string> written_parents(
    const std::vector<std::pair<std::string, YamlNode>>& entries) {
  std::map<std::string, std::string> parents;
  // Read leniently, by iterating: the entries are not checked yet, and a
  // lookup of a missing key would give an invalid node.
  for (const auto& [name, param] : entries) {
    parents[name] = "";
    if (!param.is_map()) continue;
    for (const auto& key_value : param.node()) {
      const YAML::Node& condition = key_value.second;
      if (!key_value.first.IsScalar() || key_value.first.Scalar() != "condition") continue;
      if (!condition.IsMap() || condition.size() != 1) continue;
      const YAML::Node parent = condition.begin()->first;
      if (parent.IsScalar()) parents[name] = parent.Scalar();
    }
  }
  return parents;
}

Condition parse_condition(const YamlNode& node, const std::string& child,
                          const SearchSpaceConfig& space,
                          const std::map<std::string, std::string>& parents) {
  if (!node.is_map()) node.fail(std::string(kShape) + ", got " + node.describe());
  const auto entries = node.as_map();
  if (entries.size() != 1) node.fail(std::string(kShape) + ", got " + node.describe());
  // Named copies: C++17 lambdas cannot capture structured bindings.
  const std::string parent = entries.front().first;
  const YamlNode& values = entries.front().second;
  const auto spec = std::find_if(space.params.begin(), space.params.end(),
                                 [&](const ParamSpec& p) { return p.name == parent; });
  if (spec == space.params.end()) node.fail(missing_parent(child, parent, space, parents));
  const auto* choices = std::get_if<CategoricalDistribution>(&spec->distribution);
  if (!choices) {
    const bool is_float = std::holds_alternative<FloatDistribution>(spec->distribution);
    node.fail("'" + parent + "' is " + (is_float ? "a float" : "an int") + " parameter; " + kRule);
  }
  return {parent, condition_values(values, parent, *choices)};
}

bool fix_choice(SearchSpaceConfig& space, const std::string& name, const ParamValue& value) {
  const auto fixed = std::find_if(space.params.begin(), space.params.end(),
                                  [&](const ParamSpec& p) { return p.name == name; });
  // A conditional one would become a value every trial gets, whatever
  // branch it takes.
  if (fixed == space.params.end() || fixed->condition) return false;
  const auto* choices = std::get_if<CategoricalDistribution>(&fixed->distribution);
  const auto is_value = [&](const ParamValue& v) { return same_value(v, value); };
  if (!choices || std::none_of(choices->choices.begin(), choices->choices.end(), is_value)) {
    return false;
  }
  // Parents come first, so a dropped parent is known before its children.
  std::vector<std::string> dropped = {name};
  SearchSpace kept;
  for (ParamSpec& p : space.params) {
    if (p.name == name) continue;
    if (p.condition && p.condition->parent == name) {
      const auto& values = p.condition->values;
      if (std::none_of(values.begin(), values.end(), is_value)) {
        dropped.push_back(p.name);
        continue;
      }
      p.condition.reset();
    } else if (p.condition && std::count(dropped.begin(), dropped.end(), p.condition->parent)) {
      dropped.push_back(p.name);
      continue;
    }
    kept.push_back(std::move(p));
  }
  space.params = std::move(kept);
  auto& pinned = space.pinned;
  pinned.erase(std::remove_if(pinned.begin(), pinned.end(),
                              [&](const std::string& n) {
                                return std::count(dropped.begin(), dropped.end(), n);
                              }),
               pinned.end());
  return true;
}

}  // namespace hpo
