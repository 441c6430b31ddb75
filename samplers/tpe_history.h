// What TPE reads of the told trials, kept from one ask to the next: each
// trial's rank for the split and its parameters in model space, in trial
// order. Rebuilding them from the history's TrialViews at every ask cost
// more than the model itself beyond a few thousand trials (a walk over
// every trial's std::map of names, and arrays allocated anew each time);
// now an ask updates only the trials told since the one before.
#ifndef HPO_SAMPLERS_TPE_HISTORY_H_
#define HPO_SAMPLERS_TPE_HISTORY_H_

#include <map>
#include <string>
#include <vector>

#include "samplers/search_space.h"
#include "samplers/tpe_param.h"
#include "samplers/tpe_split.h"
#include "samplers/trial_view.h"

namespace hpo {

class TpeHistory {
 public:
  TpeHistory(Direction direction, bool constant_liar, bool ordered_choices)
      : direction_(direction), constant_liar_(constant_liar), ordered_choices_(ordered_choices) {}

  // Brings the rows in line with `history` for `space`: the trials numbered
  // in `told` (told since the last update; repeats allowed) are read again,
  // and all of them when the space is not the last update's.
  void update(const std::map<int, TrialView>& history, std::vector<int> told,
              const SearchSpace& space);

  // How TPE models each parameter of the space, in the space's order.
  const std::vector<TpeParam>& params() const { return params_; }

  // The trial number of `row` (below 0 for a prior observation).
  int number(int row) const { return numbers_[static_cast<size_t>(row)]; }

  // One per told trial, in trial order.
  const std::vector<TpeRank>& ranks() const { return ranks_; }
  // The trial number of each row.
  const std::vector<int>& numbers() const { return numbers_; }

  // The trial in `row`'s value of parameter `param`, in model space; NaN
  // where the trial lacks it or holds a value outside today's distribution.
  double value(int row, int param) const {
    return values_[static_cast<size_t>(row) * params_.size() + static_cast<size_t>(param)];
  }

  // Which parameters the trial in `row` holds, as a number that rows with
  // the same parameters share; held() lists them, one flag per parameter.
  int pattern(int row) const { return pattern_[static_cast<size_t>(row)]; }
  const std::vector<bool>& held(int pattern) const {
    return patterns_[static_cast<size_t>(pattern)];
  }
  int n_patterns() const { return static_cast<int>(patterns_.size()); }

  // The rows that hold parameter `param`, by value, ties by row, for
  // continuous parameters (empty for the others): kept sorted as trials
  // are told, so that the estimator's bandwidths need no sort of thousands
  // of values per ask, the one cost that grew faster than the history.
  const std::vector<int>& sorted(int param) const { return sorted_[static_cast<size_t>(param)]; }

 private:
  void read(int row, const TrialView& trial);
  void insert_row(std::ptrdiff_t row);
  void unsort(int row);
  void sort_in(int row);
  bool before(int param, int a, int b) const;
  bool sorts(size_t param) const;
  std::vector<int>::iterator place(int param, int row);

  Direction direction_;
  bool constant_liar_;
  bool ordered_choices_;
  SearchSpace space_;
  std::vector<TpeParam> params_;
  // The space's names in sorted order with their columns, to merge with a
  // trial's (sorted) parameters: linear per trial.
  std::vector<std::pair<std::string, int>> names_;
  std::vector<int> numbers_;
  std::vector<TpeRank> ranks_;
  std::vector<double> values_;  // row-major, one row per trial
  std::vector<int> pattern_;  // per row
  std::vector<std::vector<bool>> patterns_;  // the distinct ones seen
  std::vector<std::vector<int>> sorted_;  // per parameter, see sorted()
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_TPE_HISTORY_H_
