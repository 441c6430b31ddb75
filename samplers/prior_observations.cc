#include "samplers/prior_observations.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "hpo/ranks/ranks.h"
#include "samplers/gp_space.h"
#include "samplers/matern_kernel.h"

namespace hpo {

namespace {

bool scored(const TrialView& t) {
  return t.state == TrialState::kComplete && t.value && std::isfinite(*t.value);
}

// Standardizes the scored values of `trials` in place: mean 0, standard
// deviation 1; a single value (or equal ones) becomes 0.
void standardize(const std::vector<TrialView*>& trials) {
  double sum = 0, squares = 0;
  int n = 0;
  for (const TrialView* t : trials) {
    if (!scored(*t)) continue;
    sum += *t->value;
    squares += *t->value * *t->value;
    ++n;
  }
  if (n == 0) return;
  const double mean = sum / n;
  const double sd = std::sqrt(std::max(0.0, squares / n - mean * mean));
  for (TrialView* t : trials) {
    if (scored(*t)) t->value = sd > 1e-12 * (1 + std::abs(mean)) ? (*t->value - mean) / sd : 0.0;
  }
}

// Spearman's rank correlation; 0 (no evidence either way) when a side is
// constant or there are fewer than two points.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const double r = ranks::spearman(a, b);
  return std::isnan(r) ? 0.0 : r;
}

struct Encoded {
  Eigen::VectorXd point;
  double value;
};

std::vector<Encoded> encoded(const GpSpace& space, const std::vector<const TrialView*>& trials) {
  std::vector<Encoded> out;
  for (const TrialView* t : trials) {
    if (!scored(*t)) continue;
    if (auto point = space.encode(t->params)) out.push_back({*point, *t->value});
  }
  return out;
}

// The agreement of one source's observations with this study's, as
// prior_tpe_weights says.
double agreement(const GpSpace& space, const std::vector<Encoded>& own,
                 const std::vector<Encoded>& source) {
  if (own.size() < 3 || source.empty()) return 1.0;
  const auto categorical = space.categorical();
  std::vector<double> mine, theirs;
  for (const Encoded& o : own) {
    std::optional<double> best_distance;
    double nearest = 0;
    for (const Encoded& s : source) {
      double d = 0;
      for (Eigen::Index j = 0; j < o.point.size(); ++j)
        d += dimension_difference(o.point[j], s.point[j], categorical[static_cast<size_t>(j)]);
      if (!best_distance || d < *best_distance) {
        best_distance = d;
        nearest = s.value;
      }
    }
    mine.push_back(o.value);
    theirs.push_back(nearest);
  }
  const double n = static_cast<double>(mine.size());
  const double rho =
      (kAgreementPseudoCount + n * rank_correlation(mine, theirs)) / (kAgreementPseudoCount + n);
  return rho > 0 ? rho * rho : 0.0;
}

}  // namespace

std::vector<double> prior_tpe_weights(const std::map<int, TrialView>& history,
                                      const std::vector<TrialView>& prior,
                                      const SearchSpace& space) {
  const GpSpace gp_space(space);
  std::vector<const TrialView*> mine;
  for (const auto& [number, t] : history) mine.push_back(&t);
  const std::vector<Encoded> own = encoded(gp_space, mine);
  std::map<int, std::vector<const TrialView*>> by_source;
  for (const TrialView& p : prior) by_source[p.source].push_back(&p);
  std::map<int, double> weight;
  for (const auto& [source, trials] : by_source)
    weight[source] = kPriorTpeWeight * agreement(gp_space, own, encoded(gp_space, trials));
  std::vector<double> out;
  for (const TrialView& p : prior) out.push_back(weight[p.source]);
  return out;
}

WeightedPrior tpe_prior(const std::map<int, TrialView>& history,
                        const std::vector<TrialView>& prior, const SearchSpace& space) {
  const std::vector<double> weights = prior_tpe_weights(history, prior, space);
  WeightedPrior out;
  for (size_t i = 0; i < prior.size(); ++i) {
    if (weights[i] <= 0) continue;
    out.trials.push_back(prior[i]);
    out.weights.push_back(weights[i]);
  }
  return out;
}

std::map<int, TrialView> with_prior(const std::map<int, TrialView>& history,
                                    const std::vector<TrialView>& prior) {
  std::map<int, TrialView> out = history;
  std::map<int, std::vector<TrialView*>> by_source;
  for (auto& [number, t] : out) by_source[0].push_back(&t);
  int next = -1;
  for (const TrialView& p : prior) {
    TrialView& t = out[next] = p;
    t.number = next--;
    by_source[t.source].push_back(&t);
  }
  for (const auto& [source, trials] : by_source) standardize(trials);
  return out;
}

}  // namespace hpo
