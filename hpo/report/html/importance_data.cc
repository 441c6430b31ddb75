#include "hpo/report/html/importance_data.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

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

// The parameters with a domain of more than one value, in first-seen order.
std::vector<Encoded> ranked_params(const StudyView& view) {
  std::vector<Encoded> params;
  std::set<std::string> seen;
  for (const auto& t : view.trials) {
    for (const auto& p : t.params) {
      if (!seen.insert(p.name).second) continue;
      Encoded e = encode_domain(p.name, p.distribution);
      if (e.domain.high > e.domain.low) params.push_back(e);
    }
  }
  return params;
}

// The encoded value of `name` in `t`; nullopt when the trial lacks it (a
// conditional parameter whose condition failed).
std::optional<double> encoded(const TrialRecord& t, const Encoded& param) {
  for (const auto& p : t.params) {
    if (p.name == param.domain.name) return param.log ? std::log(p.internal) : p.internal;
  }
  return std::nullopt;
}

// One forest: `trials` (at most max_trials of them, evenly spaced) over the
// columns `cols` of `params`, which every one of those trials holds.
struct Fit {
  std::vector<Importance> importances;
  size_t trials = 0;
};

Fit fit_forest(const std::vector<Encoded>& params, const std::vector<size_t>& cols,
               const std::vector<const TrialRecord*>& trials, size_t max_trials) {
  const size_t n = std::min(trials.size(), max_trials);
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (size_t k = 0; k < n; ++k) {
    const TrialRecord& t = *trials[k * trials.size() / n];
    std::vector<double> row;
    for (size_t c : cols) row.push_back(*encoded(t, params[c]));
    x.push_back(std::move(row));
    y.push_back(*t.value);
  }
  std::vector<FeatureDomain> domains;
  for (size_t c : cols) domains.push_back(params[c].domain);
  return {fanova_importances(domains, x, y, ForestOptions{}), n};
}

}  // namespace

nlohmann::json importance_json(const StudyView& view, size_t max_trials) {
  const std::vector<Encoded> params = ranked_params(view);
  if (params.empty()) return {{"why", "The study has no parameter with more than one value."}};
  std::vector<const TrialRecord*> complete;
  for (const auto& t : view.trials) {
    if (t.state == TrialState::kComplete && t.value && std::isfinite(*t.value))
      complete.push_back(&t);
  }
  // Parameters held by the same COMPLETE trials share a forest, fitted to
  // those trials with every parameter they all hold: a conditional
  // parameter is judged on the trials that have it (Optuna's importance
  // would leave it out), an unconditional one on all of them.
  std::map<std::vector<bool>, std::vector<size_t>> by_holders;
  for (size_t c = 0; c < params.size(); ++c) {
    std::vector<bool> holds;
    for (const TrialRecord* t : complete) holds.push_back(encoded(*t, params[c]).has_value());
    by_holders[holds].push_back(c);
  }
  nlohmann::json ranked = nlohmann::json::array();
  size_t most = 0;
  for (const auto& [holds, group] : by_holders) {
    std::vector<const TrialRecord*> trials;
    for (size_t k = 0; k < complete.size(); ++k) {
      if (holds[k]) trials.push_back(complete[k]);
    }
    if (trials.size() < 2) continue;
    std::vector<size_t> cols;
    for (size_t c = 0; c < params.size(); ++c) {
      const bool everywhere = std::all_of(trials.begin(), trials.end(), [&](const TrialRecord* t) {
        return encoded(*t, params[c]).has_value();
      });
      if (everywhere) cols.push_back(c);
    }
    const Fit fit = fit_forest(params, cols, trials, max_trials);
    most = std::max(most, fit.trials);
    for (const Importance& imp : fit.importances) {
      const bool ours = std::any_of(group.begin(), group.end(),
                                    [&](size_t c) { return params[c].domain.name == imp.name; });
      if (ours) {
        ranked.push_back(
            {{"name", imp.name}, {"importance", imp.importance}, {"trials", fit.trials}});
      }
    }
  }
  if (ranked.empty())
    return {{"why", "Needs at least 2 COMPLETE trials with a parameter; there are " +
                        std::to_string(complete.size()) + "."}};
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a["importance"].template get<double>() > b["importance"].template get<double>();
  });
  // Say what is computed: the encoding differs from Optuna's evaluator, so
  // its numbers do too (issue #20).
  const ForestOptions options;
  std::string method =
      "fANOVA (Hutter et al., 2014), computed by hpo: a random forest of " +
      std::to_string(options.trees) + " trees fitted to " + std::to_string(most) +
      " COMPLETE trials" +
      (most < complete.size() && by_holders.size() == 1
           ? " (evenly spaced, of " + std::to_string(complete.size()) + ")"
           : "") +
      "; each parameter's importance is the share of the forest's prediction variance over the "
      "search space that it explains on its own (first-order), averaged over the trees and "
      "normalized to sum to 1. The forest sees log parameters as their logarithm, integers widened "
      "by half a step, and a categorical parameter as one axis of its choices' indices in declared "
      "order; Optuna's FanovaImportanceEvaluator uses raw values and one column per choice, so its "
      "numbers differ";
  if (by_holders.size() > 1) {
    method +=
        ". A parameter only some trials hold (conditional) is ranked by a forest of the trials "
        "that hold it (its count beside its name), over the parameters those trials all hold: "
        "its share of the variance among them";
  }
  return {{"method", method}, {"trials", most}, {"params", ranked}};
}

}  // namespace hpo
