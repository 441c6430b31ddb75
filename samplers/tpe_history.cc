#include "samplers/tpe_history.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace hpo {

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

bool same_space(const SearchSpace& a, const SearchSpace& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const ParamSpec& x, const ParamSpec& y) {
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
    sorted_.assign(params_.size(), {});
    told.clear();
    for (const auto& [number, trial] : history) told.push_back(number);
  }
  std::sort(told.begin(), told.end());
  told.erase(std::unique(told.begin(), told.end()), told.end());
  // Many trials at once (a resumed study, a changed space): one sort at the
  // end is cheaper than inserting each into the sorted lists.
  const bool resort = told.size() > 64;
  for (int number : told) {
    const auto it = std::lower_bound(numbers_.begin(), numbers_.end(), number);
    const auto row = it - numbers_.begin();
    if (it == numbers_.end() || *it != number) {
      insert_row(row);
      numbers_.insert(numbers_.begin() + row, number);
    } else if (!resort) {
      unsort(static_cast<int>(row));
    }
    read(static_cast<int>(row), history.at(number));
    if (!resort) sort_in(static_cast<int>(row));
  }
  if (!resort) return;
  for (size_t j = 0; j < params_.size(); ++j) {
    auto& rows = sorted_[j];
    rows.clear();
    if (!sorts(j)) continue;
    for (size_t r = 0; r < numbers_.size(); ++r) {
      if (!std::isnan(value(static_cast<int>(r), static_cast<int>(j))))
        rows.push_back(static_cast<int>(r));
    }
    std::sort(rows.begin(), rows.end(),
              [&](int a, int b) { return before(static_cast<int>(j), a, b); });
  }
}

// Makes room for a trial at `row`; new trials come last but for one told
// late (another process's), and the rows after it move down by one.
void TpeHistory::insert_row(std::ptrdiff_t row) {
  ranks_.insert(ranks_.begin() + row, TpeRank{});
  pattern_.insert(pattern_.begin() + row, 0);
  values_.insert(values_.begin() + row * static_cast<std::ptrdiff_t>(params_.size()),
                 params_.size(), kMissing);
  if (row == static_cast<std::ptrdiff_t>(numbers_.size())) return;
  for (auto& rows : sorted_) {
    for (int& r : rows) r += r >= row ? 1 : 0;
  }
}

// Grids count their few values and categoricals have no bandwidths.
bool TpeHistory::sorts(size_t param) const {
  const KernelDim& dim = params_[param].kernel();
  return !dim.categorical && dim.q == 0;
}

bool TpeHistory::before(int param, int a, int b) const {
  const double x = value(a, param), y = value(b, param);
  return x < y || (x == y && a < b);
}

// Where `row` is or belongs in parameter `param`'s sorted list.
std::vector<int>::iterator TpeHistory::place(int param, int row) {
  auto& rows = sorted_[static_cast<size_t>(param)];
  return std::lower_bound(rows.begin(), rows.end(), row,
                          [&](int a, int b) { return before(param, a, b); });
}

// Takes `row` out of the sorted lists, before its values change.
void TpeHistory::unsort(int row) {
  for (size_t j = 0; j < params_.size(); ++j) {
    const int param = static_cast<int>(j);
    if (!sorts(j) || std::isnan(value(row, param))) continue;
    const auto it = place(param, row);
    assert(it != sorted_[j].end() && *it == row);
    sorted_[j].erase(it);
  }
}

void TpeHistory::sort_in(int row) {
  for (size_t j = 0; j < params_.size(); ++j) {
    const int param = static_cast<int>(j);
    if (sorts(j) && !std::isnan(value(row, param))) sorted_[j].insert(place(param, row), row);
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
