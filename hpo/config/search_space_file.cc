#include "hpo/config/search_space_file.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

#include "hpo/config/did_you_mean.h"
#include "hpo/config/param_condition.h"
#include "hpo/config/yaml_node.h"

namespace hpo {

namespace {

const std::vector<std::string> kTypes = {"float", "int", "categorical", "fixed"};
const std::vector<std::string> kNumberKeys = {"type", "low",    "high",     "log",
                                              "step", "pinned", "condition"};

// NaN would make every comparison below false and pass them all.
double finite_number(const YamlNode& node) {
  const double value = node.as_double();
  if (!std::isfinite(value)) node.fail("expected a finite number, got " + node.describe());
  return value;
}

// Grid points are low + k*step; (high - low) / step must then be a whole
// number, up to rounding in the division (0.3 / 0.05 is 5.999999999999999).
bool divides(double step, double range) {
  const double n = range / step;
  return std::fabs(n - std::round(n)) <= 1e-9 * std::max(1.0, n);
}

FloatDistribution parse_float(const YamlMap& map) {
  FloatDistribution d;
  const YamlNode low = map.require("low");
  const YamlNode high = map.require("high");
  d.low = finite_number(low);
  d.high = finite_number(high);
  if (d.low >= d.high) {
    high.fail("a float parameter needs low < high, got low " + low.describe() + " and high " +
              high.describe() + " (use {type: fixed, value: ...} for a constant)");
  }
  if (auto log = map.find("log")) d.log = log->as_bool();
  if (d.log && d.low <= 0) low.fail("must be > 0 with log: true, got " + low.describe());
  if (auto step = map.find("step")) {
    if (d.log) step->fail("step cannot be combined with log: true");
    const double s = finite_number(*step);
    if (s <= 0) step->fail("must be > 0, got " + step->describe());
    // Past 2^53 grid points k*step is no longer exact: trials would fall
    // outside [low, high] (a step of 1e-300 on [0, 1] failed the first store).
    if ((d.high - d.low) / s > 1e15) {
      step->fail("step " + step->describe() + " makes more than 1e15 grid points of high - low (" +
                 to_string(ParamValue(d.high - d.low)) +
                 "); leave step out for a continuous range");
    }
    if (!divides(s, d.high - d.low)) {
      step->fail("step " + step->describe() + " does not divide high - low (" +
                 to_string(ParamValue(d.high - d.low)) + ")");
    }
    d.step = s;
  }
  return d;
}

IntDistribution parse_int(const YamlMap& map) {
  IntDistribution d;
  const YamlNode low = map.require("low");
  const YamlNode high = map.require("high");
  d.low = low.as_int();
  d.high = high.as_int();
  // Values are stored as doubles (Optuna's param_value), which hold every
  // integer only up to 2^53; within that, high - low fits the samplers' int64.
  constexpr int64_t kExact = int64_t{1} << 53;
  for (const auto& [bound, v] : {std::pair{&low, d.low}, std::pair{&high, d.high}}) {
    if (v < -kExact || v > kExact)
      bound->fail("an int parameter's bounds must lie within -2^53..2^53 (" +
                  std::to_string(kExact) + "): its values are stored as doubles, as Optuna " +
                  "stores them, got " + bound->describe());
  }
  if (d.low > d.high) {
    high.fail("an int parameter needs low <= high, got low " + low.describe() + " and high " +
              high.describe());
  }
  if (auto log = map.find("log")) d.log = log->as_bool();
  if (d.log && d.low <= 0) low.fail("must be > 0 with log: true, got " + low.describe());
  if (auto step = map.find("step")) {
    if (d.log) step->fail("step cannot be combined with log: true");
    d.step = step->as_int();
    if (d.step <= 0) step->fail("must be > 0, got " + step->describe());
    // high - low may not fit in int64 (low -2^62, high 2^62) but always fits
    // in uint64 once high >= low.
    const uint64_t range = static_cast<uint64_t>(d.high) - static_cast<uint64_t>(d.low);
    if (range % static_cast<uint64_t>(d.step) != 0) {
      step->fail("step " + step->describe() + " does not divide high - low (" +
                 std::to_string(range) + ")");
    }
  }
  return d;
}

CategoricalDistribution parse_categorical(const YamlMap& map) {
  CategoricalDistribution d;
  const YamlNode choices = map.require("choices");
  const std::vector<YamlNode> items = choices.as_list();
  if (items.empty()) choices.fail("expected at least one choice, got an empty list");
  for (const YamlNode& item : items) {
    const ParamValue value = item.as_value();
    if (std::holds_alternative<double>(value) && std::isnan(std::get<double>(value))) {
      item.fail("NaN cannot be a choice");
    }
    for (const ParamValue& seen : d.choices) {
      if (same_value(seen, value)) {
        item.fail("duplicate choice " + (item.is_null() ? "null" : item.describe()));
      }
    }
    d.choices.push_back(value);
  }
  return d;
}

const std::vector<std::string>& keys_of(const std::string& type) {
  static const std::vector<std::string> categorical = {"type", "choices", "pinned", "condition"};
  static const std::vector<std::string> fixed = {"type", "value"};
  if (type == "categorical") return categorical;
  if (type == "fixed") return fixed;
  return kNumberKeys;
}

std::string read_type(const YamlNode& param) {
  const auto entries = param.as_map();
  const auto it = std::find_if(entries.begin(), entries.end(),
                               [](const auto& entry) { return entry.first == "type"; });
  if (it == entries.end()) {
    param.fail("missing required key 'type' (float, int, categorical or fixed)");
  }
  const std::string type = it->second.as_string();
  if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
    it->second.fail("unknown type '" + type + "'" + did_you_mean(type, kTypes) +
                    "; expected float, int, categorical or fixed");
  }
  return type;
}

Distribution parse_distribution(const std::string& type, const YamlMap& map) {
  if (type == "float") return parse_float(map);
  if (type == "int") return parse_int(map);
  return parse_categorical(map);
}

void parse_param(const std::string& name, const YamlNode& param, SearchSpaceConfig& space,
                 const std::map<std::string, std::string>& parents) {
  // A trainer gets each name as a config key: "" (or one with a control
  // character) is none a user meant.
  if (name.empty() || std::any_of(name.begin(), name.end(),
                                  [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    param.fail("expected a parameter name, got an empty name or one with a control character");
  }
  if (param.node().IsScalar()) {
    space.fixed.emplace_back(name, param.as_value());
    return;
  }
  if (!param.is_map()) {
    param.fail(
        "expected a parameter such as {type: float, low: 0, high: 1} or a fixed value, got " +
        param.describe());
  }
  const std::string type = read_type(param);
  if (type == "fixed") {
    for (const auto& [key, node] : param.as_map()) {
      if (key == "condition") {
        node.fail(
            "a fixed value goes to every trial and cannot have a condition; make it a "
            "categorical with one choice");
      }
    }
  }
  const YamlMap map(param, keys_of(type));
  if (type == "fixed") {
    space.fixed.emplace_back(name, map.require("value").as_value());
    return;
  }
  const auto condition = map.find("condition");
  ParamSpec spec{name, parse_distribution(type, map)};
  // Read before the parameter joins `space`: a condition on itself is then
  // a cycle, not a parent found above.
  if (condition) spec.condition = parse_condition(*condition, name, space, parents);
  space.params.push_back(std::move(spec));
  // `pinned: true` keeps the space's own domain on every GPU profile.
  if (auto pinned = map.find("pinned"); pinned && pinned->as_bool()) space.pinned.push_back(name);
}

}  // namespace

SearchSpaceConfig parse_search_space(const std::string& yaml_text,
                                     const std::string& path_for_messages) {
  const YamlMap root(parse_yaml_mapping(yaml_text, path_for_messages), {"params"});
  const YamlNode params = root.require("params");
  const auto entries = params.as_map();  // rejects a name given twice
  if (entries.empty()) params.fail("expected at least one parameter, got an empty mapping");
  SearchSpaceConfig space;
  space.path = path_for_messages;
  const auto parents = written_parents(entries);
  for (const auto& [name, param] : entries) parse_param(name, param, space, parents);
  return space;
}

SearchSpaceConfig load_search_space(const std::string& path) {
  return parse_search_space(read_text_file(path, "search space file"), path);
}

}  // namespace hpo
