#include "samplers/motpe_sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "samplers/hypervolume.h"
#include "samplers/numbers.h"
#include "samplers/pareto.h"

namespace hpo {

namespace {

constexpr double kTiny = 1e-12;

// The most trials "below" ever holds (n_below's cap): no front past that
// many can hold a good trial.
const size_t kDepth =
    static_cast<size_t>(n_below(std::numeric_limits<int>::max(), 1.0, TpeSplitRule::kLinear));

// The good trials' weights: each its exclusive hypervolume over the best
// one's (at least kTiny); infeasible ones kTiny.
std::vector<double> share_weights(const Losses& losses, const std::vector<double>& violations) {
  Losses feasible;
  std::vector<size_t> where;
  for (size_t i = 0; i < losses.size(); ++i) {
    if (violations[i] == 0) {
      feasible.push_back(losses[i]);
      where.push_back(i);
    }
  }
  std::vector<double> w(losses.size(), kTiny);
  if (feasible.empty()) return w;
  const auto share = hypervolume_contributions(feasible, nadir_reference(feasible));
  const double top = *std::max_element(share.begin(), share.end());
  for (size_t k = 0; k < where.size(); ++k)
    w[where[k]] = top > 0 ? std::max(share[k] / top, kTiny) : 1.0;
  return w;
}

}  // namespace

TpeOptions motpe_default_options() {
  TpeOptions o;
  o.weighting = TpeWeighting::kOptuna;
  o.per_parameter_from = 10;
  return o;
}

MotpeSampler::MotpeSampler(uint64_t seed, std::vector<Direction> directions, TpeOptions options)
    : TpeSampler(seed, directions.empty() ? Direction::kMinimize : directions.front(), options),
      directions_(std::move(directions)),
      feasible_(kDepth) {}

void MotpeSampler::tell(const TrialView& trial) {
  if (!trial.value && !trial.values.empty()) {
    // TPE's history counts a COMPLETE trial by its `value`; the first
    // objective stands in, as TrialView promises, should a caller leave it out.
    TrialView copy = trial;
    copy.value = trial.values.front();
    TpeSampler::tell(copy);
  } else {
    TpeSampler::tell(trial);
  }
  const size_t m = directions_.size(), at = static_cast<size_t>(trial.number);
  if (complete_.size() <= at) {
    complete_.resize(at + 1);
    violation_.resize(at + 1);
    losses_.resize((at + 1) * m);
  }
  const auto l = trial_losses(trial, directions_);
  const double v = violation(trial.constraints);
  const bool was = complete_[at];
  if (was && l && v == violation_[at] && *l == point(trial.number)) return;  // told again
  complete_[at] = l.has_value();
  violation_[at] = v;
  if (l) std::copy(l->begin(), l->end(), losses_.begin() + static_cast<std::ptrdiff_t>(at * m));
  if (was) {
    rebuild();  // a finished trial changed: rare, so rank them all again
  } else if (l) {
    add(at);
  }
}

std::vector<double> MotpeSampler::point(int number) const {
  const size_t m = directions_.size(), at = static_cast<size_t>(number);
  return std::vector<double>(losses_.begin() + static_cast<std::ptrdiff_t>(at * m),
                             losses_.begin() + static_cast<std::ptrdiff_t>((at + 1) * m));
}

void MotpeSampler::add(size_t at) {
  const int number = static_cast<int>(at);
  if (violation_[at] == 0)
    feasible_.add(number, point(number));
  else
    infeasible_.insert({violation_[at], number});
}

void MotpeSampler::rebuild() {
  feasible_.clear();
  infeasible_.clear();
  good_ = Good{};  // its trials may be the same with other values
  for (size_t at = 0; at < complete_.size(); ++at) {
    if (complete_[at]) add(at);
  }
}

const MotpeSampler::Good& MotpeSampler::good(size_t cut) const {
  // The candidates: the best whole fronts that reach `cut` trials (each in
  // trial order), then infeasible trials, fewest violations first.
  std::vector<std::vector<int>> fronts;
  size_t n = 0;
  for (const auto& front : feasible_.fronts()) {
    if (n >= cut) break;
    fronts.emplace_back();
    for (const auto& p : front) fronts.back().push_back(p.id);
    std::sort(fronts.back().begin(), fronts.back().end());
    n += front.size();
  }
  std::vector<int> candidates;
  for (const auto& f : fronts) candidates.insert(candidates.end(), f.begin(), f.end());
  for (auto it = infeasible_.begin(); it != infeasible_.end() && candidates.size() < cut; ++it)
    candidates.push_back(it->second);
  if (candidates == good_.candidates && cut == good_.cut) return good_;
  // The same trials as ranking all of them and taking whole fronts would
  // give; the last feasible front that does not fit is cut to size by
  // hypervolume subset selection, infeasible ones by the order above.
  Good g;
  g.candidates = std::move(candidates);
  g.cut = cut;
  for (const auto& front : fronts) {
    if (g.numbers.size() + front.size() <= cut) {
      g.numbers.insert(g.numbers.end(), front.begin(), front.end());
      continue;
    }
    Losses points;
    for (int k : front) points.push_back(point(k));
    for (size_t k : select_by_hypervolume(points, cut - g.numbers.size(), nadir_reference(points)))
      g.numbers.push_back(front[k]);
  }
  for (size_t k = g.numbers.size(); k < std::min(cut, g.candidates.size()); ++k)
    g.numbers.push_back(g.candidates[k]);
  Losses losses;
  std::vector<double> violations;
  for (int k : g.numbers) {
    losses.push_back(point(k));
    violations.push_back(violation_[static_cast<size_t>(k)]);
  }
  g.weights = share_weights(losses, violations);
  good_ = std::move(g);
  return good_;
}

TpeSplit MotpeSampler::split() const {
  const auto& ranks = rows().ranks();
  const auto& numbers = rows().numbers();
  TpeSplit s;
  s.loss.assign(ranks.size(), kNaN);
  s.threshold = kNaN;
  size_t complete = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (!ranks[i].counts || ranks[i].running) continue;
    ++s.n_finished;
    const int number = numbers[i];
    if (number >= 0 && complete_[static_cast<size_t>(number)]) ++complete;
  }
  const size_t cut = std::min(
      complete, static_cast<size_t>(n_below(s.n_finished, options().gamma, options().split)));
  const Good& g = good(cut);
  // The good trials' rows: rows are in trial order.
  s.below_weight.assign(ranks.size(), 1.0);
  std::vector<bool> is_good(ranks.size());
  for (size_t j = 0; j < g.numbers.size(); ++j) {
    const auto row = std::lower_bound(numbers.begin(), numbers.end(), g.numbers[j]);
    if (row == numbers.end() || *row != g.numbers[j]) continue;
    const auto i = static_cast<size_t>(row - numbers.begin());
    is_good[i] = true;
    s.below_weight[i] = g.weights[j];
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].counts) (is_good[i] ? s.below : s.above).push_back(static_cast<int>(i));
  }
  return s;
}

}  // namespace hpo
