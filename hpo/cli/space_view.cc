#include "hpo/cli/space_view.h"

#include <algorithm>

#include "hpo/config/did_you_mean.h"
#include "hpo/storage/optuna_codec.h"

namespace hpo {

namespace {

bool from_profile(const FittedSpace& fit, const std::string& name) {
  return std::find(fit.from_profile.begin(), fit.from_profile.end(), name) !=
         fit.from_profile.end();
}

// Set by the profile, or narrowed by its ceilings.
bool changed_by_profile(const FittedSpace& fit, size_t i) {
  const ParamSpec& sampled = fit.sampled[i];
  return from_profile(fit, sampled.name) ||
         !(sampled.distribution == fit.declared.params[i].distribution);
}

nlohmann::json distribution_json(const Distribution& d) {
  if (const auto* c = std::get_if<CategoricalDistribution>(&d)) {
    nlohmann::json choices = nlohmann::json::array();
    for (const ParamValue& v : c->choices) choices.push_back(param_value_to_json(v));
    return {{"type", "categorical"}, {"choices", choices}};
  }
  if (const auto* i = std::get_if<IntDistribution>(&d)) {
    return {
        {"type", "int"}, {"low", i->low}, {"high", i->high}, {"step", i->step}, {"log", i->log}};
  }
  const auto& f = std::get<FloatDistribution>(d);
  nlohmann::json j = {{"type", "float"}, {"low", f.low}, {"high", f.high}, {"log", f.log}};
  if (f.step) j["step"] = *f.step;
  return j;
}

std::string distribution_text(const Distribution& d) {
  if (const auto* c = std::get_if<CategoricalDistribution>(&d)) {
    std::vector<std::string> choices;
    for (const ParamValue& v : c->choices) choices.push_back(to_string(v));
    return "categorical [" + join_names(choices) + "]";
  }
  if (const auto* i = std::get_if<IntDistribution>(&d)) {
    return "int " + std::to_string(i->low) + ".." + std::to_string(i->high) +
           (i->step != 1 ? " step " + std::to_string(i->step) : "") + (i->log ? " log" : "");
  }
  const auto& f = std::get<FloatDistribution>(d);
  return "float " + short_number(f.low) + ".." + short_number(f.high) +
         (f.step ? " step " + short_number(*f.step) : "") + (f.log ? " log" : "");
}

const char* source(bool profile) { return profile ? "profile" : "space"; }

// " (when model is tcn)": a conditional parameter's condition, for a line.
std::string condition_text(const ParamSpec& p) {
  if (!p.condition) return "";
  std::vector<std::string> values;
  for (const ParamValue& v : p.condition->values) values.push_back(to_string(v));
  return " (when " + p.condition->parent + " is " +
         (values.size() == 1 ? values.front() : "one of " + join_names(values)) + ")";
}

}  // namespace

nlohmann::json space_json(const FittedSpace& fit) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < fit.sampled.size(); ++i) {
    nlohmann::json param = distribution_json(fit.sampled[i].distribution);
    param["from"] = source(changed_by_profile(fit, i));
    if (const auto& c = fit.sampled[i].condition) {
      nlohmann::json values = nlohmann::json::array();
      for (const ParamValue& v : c->values) values.push_back(param_value_to_json(v));
      param["condition"] = {{c->parent, values}};
    }
    j[fit.sampled[i].name] = param;
  }
  for (const auto& [name, value] : fit.declared.fixed) {
    j[name] = {{"type", "fixed"},
               {"value", param_value_to_json(value)},
               {"from", source(from_profile(fit, name))}};
  }
  return j;
}

std::vector<std::string> space_lines(const FittedSpace& fit) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < fit.sampled.size(); ++i) {
    lines.push_back(fit.sampled[i].name + ": " + distribution_text(fit.sampled[i].distribution) +
                    condition_text(fit.sampled[i]) +
                    (changed_by_profile(fit, i) ? " (from the profile)" : ""));
  }
  for (const auto& [name, value] : fit.declared.fixed) {
    lines.push_back(name + ": " + to_string(value) +
                    (from_profile(fit, name) ? " (from the profile)" : ""));
  }
  return lines;
}

}  // namespace hpo
