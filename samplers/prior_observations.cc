#include "samplers/prior_observations.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

}  // namespace

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
