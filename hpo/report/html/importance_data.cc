#include "hpo/report/html/importance_data.h"

#include <cmath>
#include <map>

#include "hpo/analysis/fanova.h"

namespace hpo {

namespace {

struct Encoded {
  FeatureDomain domain;
  bool log = false;
};

// How the forest sees a parameter: see FeatureDomain. Empty name: a
// parameter with a single value, which explains nothing.
Encoded encode_domain(const std::string& name, const Distribution& dist) {
  if (const auto* f = std::get_if<FloatDistribution>(&dist)) {
    if (f->log) return {{name, std::log(f->low), std::log(f->high)}, true};
    return {{name, f->low, f->high}, false};
  }
  if (const auto* i = std::get_if<IntDistribution>(&dist)) {
    if (i->log)
      return {{name, std::log(static_cast<double>(i->low)), std::log(static_cast<double>(i->high))},
              true};
    return {{name, static_cast<double>(i->low) - 0.5, static_cast<double>(i->high) + 0.5}, false};
  }
  const double k = static_cast<double>(std::get<CategoricalDistribution>(dist).choices.size());
  return {{name, -0.5, k - 0.5}, false};
}

}  // namespace

nlohmann::json importance_json(const StudyView& view, size_t max_trials) {
  // The parameters with a domain of more than one value, in first-seen order.
  std::vector<Encoded> params;
  std::map<std::string, size_t> column;
  for (const auto& t : view.trials) {
    for (const auto& p : t.params) {
      if (column.count(p.name)) continue;
      Encoded e = encode_domain(p.name, p.distribution);
      if (!(e.domain.high > e.domain.low)) continue;
      column[p.name] = params.size();
      params.push_back(e);
    }
  }
  std::vector<const TrialRecord*> usable;
  for (const auto& t : view.trials) {
    if (t.state != TrialState::kComplete || !t.value || !std::isfinite(*t.value)) continue;
    size_t found = 0;
    for (const auto& p : t.params) found += column.count(p.name);
    if (found == params.size()) usable.push_back(&t);
  }
  if (params.empty()) return {{"why", "The study has no parameter with more than one value."}};
  if (usable.size() < 2)
    return {{"why", "Needs at least 2 COMPLETE trials with every parameter; there are " +
                        std::to_string(usable.size()) + "."}};
  const size_t n = std::min(usable.size(), max_trials);
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (size_t k = 0; k < n; ++k) {
    const TrialRecord& t = *usable[k * usable.size() / n];
    std::vector<double> row(params.size());
    for (const auto& p : t.params) {
      const auto c = column.find(p.name);
      if (c != column.end())
        row[c->second] = params[c->second].log ? std::log(p.internal) : p.internal;
    }
    x.push_back(std::move(row));
    y.push_back(*t.value);
  }
  std::vector<FeatureDomain> domains;
  for (const auto& p : params) domains.push_back(p.domain);
  const ForestOptions options;
  nlohmann::json ranked = nlohmann::json::array();
  for (const auto& imp : fanova_importances(domains, x, y, options)) {
    ranked.push_back({{"name", imp.name}, {"importance", imp.importance}});
  }
  // Say what is computed: the encoding differs from Optuna's evaluator, so
  // its numbers do too (issue #20).
  std::string method =
      "fANOVA (Hutter et al., 2014), computed by hpo: a random forest of " +
      std::to_string(options.trees) + " trees fitted to " + std::to_string(n) + " COMPLETE trials" +
      (n < usable.size() ? " (evenly spaced, of " + std::to_string(usable.size()) + ")" : "") +
      "; each parameter's importance is the share of the forest's prediction variance over the "
      "search space that it explains on its own (first-order), averaged over the trees and "
      "normalized to sum to 1. The forest sees log parameters as their logarithm, integers widened "
      "by half a step, and a categorical parameter as one axis of its choices' indices in declared "
      "order; Optuna's FanovaImportanceEvaluator uses raw values and one column per choice, so its "
      "numbers differ";
  return {{"method", method}, {"trials", n}, {"params", ranked}};
}

}  // namespace hpo
