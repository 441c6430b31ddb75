#include "hpo/run/space_change.h"

#include <algorithm>

#include "samplers/param_value.h"

namespace hpo {

namespace {

std::string describe(const Distribution& d) {
  if (const auto* f = std::get_if<FloatDistribution>(&d))
    return std::string("float") + (f->log ? " log" : "");
  if (const auto* i = std::get_if<IntDistribution>(&d))
    return std::string("int") + (i->log ? " log" : "");
  std::string text = "categorical [";
  const auto& choices = std::get<CategoricalDistribution>(d).choices;
  for (size_t k = 0; k < choices.size(); ++k) text += (k ? ", " : "") + to_string(choices[k]);
  return text + "]";
}

bool log_scale(const Distribution& d) {
  if (const auto* f = std::get_if<FloatDistribution>(&d)) return f->log;
  if (const auto* i = std::get_if<IntDistribution>(&d)) return i->log;
  return false;
}

// Optuna's rule for two distributions under one name (see the header).
bool compatible(const Distribution& stored, const Distribution& now) {
  if (stored.index() != now.index() || log_scale(stored) != log_scale(now)) return false;
  const auto* a = std::get_if<CategoricalDistribution>(&stored);
  const auto* b = std::get_if<CategoricalDistribution>(&now);
  return !a || a->choices == b->choices;
}

}  // namespace

std::string incompatible_space_change(const std::vector<TrialRecord>& trials,
                                      const SearchSpace& space) {
  for (const ParamSpec& spec : space) {
    for (const TrialRecord& t : trials) {
      const auto stored = std::find_if(t.params.begin(), t.params.end(),
                                       [&](const StoredParam& p) { return p.name == spec.name; });
      if (stored == t.params.end()) continue;
      if (compatible(stored->distribution, spec.distribution)) break;  // Optuna checks one
      return "'" + spec.name + "': " + describe(stored->distribution) + " in the stored trials, " +
             describe(spec.distribution) + " now";
    }
  }
  return "";
}

}  // namespace hpo
