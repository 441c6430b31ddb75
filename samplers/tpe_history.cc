#include "samplers/tpe_history.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpo {

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

bool same_space(const SearchSpace& a, const SearchSpace& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const ParamSpec& x, const ParamSpec& y) {
    return x.name == y.name && x.distribution == y.distribution;
  });
}

}  // namespace

void TpeHistory::update(const std::map<int, TrialView>& history, std::vector<int> told,
                        const SearchSpace& space) {
  if (!same_space(space, space_)) {
    space_ = space;
    params_.clear();
    names_.clear();
    for (size_t j = 0; j < space.size(); ++j) {
      params_.emplace_back(space[j].distribution, ordered_choices_);
      names_.emplace_back(space[j].name, static_cast<int>(j));
    }
    std::sort(names_.begin(), names_.end());
    numbers_.clear();
    ranks_.clear();
    values_.clear();
    pattern_.clear();
    patterns_.clear();
    told.clear();
    for (const auto& [number, trial] : history) told.push_back(number);
  }
  std::sort(told.begin(), told.end());
  told.erase(std::unique(told.begin(), told.end()), told.end());
  for (int number : told) {
    const auto it = std::lower_bound(numbers_.begin(), numbers_.end(), number);
    const auto row = it - numbers_.begin();
    if (it == numbers_.end() || *it != number) {
      // New trials come last but for one told late (another process's).
      numbers_.insert(it, number);
      ranks_.insert(ranks_.begin() + row, TpeRank{});
      pattern_.insert(pattern_.begin() + row, 0);
      values_.insert(values_.begin() + row * static_cast<std::ptrdiff_t>(params_.size()), params_.size(), kMissing);
    }
    read(static_cast<int>(row), history.at(number));
  }
}

void TpeHistory::read(int row, const TrialView& trial) {
  ranks_[static_cast<size_t>(row)] = tpe_rank(trial, direction_, constant_liar_);
  double* values = values_.data() + static_cast<size_t>(row) * params_.size();
  std::fill(values, values + params_.size(), kMissing);
  auto it = trial.params.begin();
  const auto end = trial.params.end();
  for (const auto& [name, j] : names_) {
    int order = -1;
    while (it != end && (order = it->first.compare(name)) < 0) ++it;
    if (it == end) break;
    if (order != 0) continue;
    // A value outside today's distribution (the space changed) is no
    // observation of it.
    if (contains(space_[static_cast<size_t>(j)].distribution, it->second)) {
      values[j] = params_[static_cast<size_t>(j)].to_model(it->second);
    }
  }
  std::vector<bool> held(params_.size());
  for (size_t j = 0; j < params_.size(); ++j) held[j] = !std::isnan(values[j]);
  auto known = std::find(patterns_.begin(), patterns_.end(), held);
  if (known == patterns_.end()) known = patterns_.insert(known, std::move(held));
  pattern_[static_cast<size_t>(row)] = static_cast<int>(known - patterns_.begin());
}

}  // namespace hpo
