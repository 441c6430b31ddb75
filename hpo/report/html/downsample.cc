#include "hpo/report/html/downsample.h"

#include <algorithm>

namespace hpo {

namespace {

// Whether a is a better trial than b: any value beats none.
bool better(const TrialRecord* a, const TrialRecord* b, Direction direction) {
  if (!a->value || !b->value) return a->value.has_value() && !b->value.has_value();
  return direction == Direction::kMaximize ? *a->value > *b->value : *a->value < *b->value;
}

}  // namespace

std::vector<const TrialRecord*> downsample(const std::vector<const TrialRecord*>& trials,
                                           Direction direction, size_t limit) {
  if (trials.size() <= limit) return trials;
  std::vector<size_t> order(trials.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return better(trials[a], trials[b], direction); });
  std::vector<bool> keep(trials.size(), false);
  const size_t n_best = limit / 2;
  for (size_t i = 0; i < n_best; ++i) keep[order[i]] = true;
  // The rest, spread over the trials not yet kept, in number order.
  std::vector<size_t> others;
  for (size_t i = 0; i < trials.size(); ++i) {
    if (!keep[i]) others.push_back(i);
  }
  const size_t n_spread = limit - n_best;
  for (size_t k = 0; k < n_spread; ++k) keep[others[k * others.size() / n_spread]] = true;
  std::vector<const TrialRecord*> kept;
  for (size_t i = 0; i < trials.size(); ++i) {
    if (keep[i]) kept.push_back(trials[i]);
  }
  return kept;
}

}  // namespace hpo
