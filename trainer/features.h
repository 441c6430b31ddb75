// Alpha158-style features and the forward-return label, computed from a
// Panel. The feature list and formulas are documented in trainer/FEATURES.md.
//
// Every feature of (ticker, day t) uses only that ticker's rows on days <= t;
// the label of (ticker, t) is the return of a position held for `horizon`
// days, by default entered at the open of day t + 1 (see LabelSpec). Each
// feature is then normalized across tickers on each date, so nothing mixes
// dates either.
#ifndef HPO_TRAINER_FEATURES_H_
#define HPO_TRAINER_FEATURES_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "trainer/panel.h"

namespace hpo::trainer {

// Where the label's position is entered and left (config `label_entry`).
// The features of day t are known only after its close, so a strategy can
// trade on them at day t + 1 at the earliest.
enum class LabelEntry {
  kNextOpen,  // log(o[t+1+h] / o[t+1]): enter at the next open (the default)
  kNextClose,  // log(c[t+1+h] / c[t+1]): enter at the next close
  kClose,  // log(c[t+h] / c[t]): at the feature day's close, a trade no one could make
};

struct LabelSpec {
  int horizon = 1;  // days the position is held
  LabelEntry entry = LabelEntry::kNextOpen;
};

// The last day the label of day t reads, as days after t: the gap a split
// needs before the next one starts.
size_t label_reach(const LabelSpec& spec);

// "next_open", "next_close" or "close" (config `label_entry`); nullopt for
// anything else.
std::optional<LabelEntry> label_entry_named(const std::string& name);

// The universe floor a FeatureSet gets unless told otherwise (config min_names).
constexpr size_t kDefaultMinNames = 5;

struct FeatureSet {
  size_t num_tickers = 0, num_days = 0, num_features = 0;
  std::vector<std::string> names;  // one per feature
  // tickers x days x features, ticker-major, so the lookback window of one
  // sample is a single contiguous block. Normalized, missing -> 0.
  std::vector<float> values;
  // tickers x days: the raw forward log return (NaN when unknown) and the
  // training target (that return z-scored across tickers on its date).
  std::vector<float> label, target;
  // tickers x days: the one-day log return of the position the label enters
  // (the label with horizon 1), for the daily-rebalanced portfolio. It reads
  // no price past the label's own reach. NaN where the label is 0 because
  // the position cannot be entered (the name has no price on the entry
  // day): the portfolio leaves that order unfilled.
  std::vector<float> daily_return;
  // Days before this one lack the history of the longest window.
  size_t first_full_day = 0;
  LabelSpec label_spec;
  // Per ticker: the first day it has a row (num_days when none). Its own
  // longest window is complete kLongestWindow days later (samples_in).
  std::vector<uint32_t> first_row;
  // The fewest samples a day needs to be trained on or scored (config
  // min_names): a z-score of fewer names is mostly noise, and of 2 is +-1.
  size_t min_names = kDefaultMinNames;
  // Labels whose exit price was missing because the name stopped trading
  // for good, closed at its last print (the data summary counts them).
  size_t delisting_labels = 0;

  size_t cell(size_t ticker, size_t day) const { return ticker * num_days + day; }
  const float* row(size_t ticker, size_t day) const {
    return &values[cell(ticker, day) * num_features];
  }
};

// The longest lookback any feature uses, in days.
constexpr size_t kLongestWindow = 60;

// On `threads` threads (features.cc says how it splits); the values do not
// depend on how many.
FeatureSet compute_features(const Panel& panel, const LabelSpec& label,
                            size_t min_names = kDefaultMinNames, size_t threads = 1);

// Z-scores each date's finite values across tickers, in each of the
// `columns` columns of a tickers x days x columns array; clips to +-5 and
// writes `missing` where a value is not finite.
void normalize_cross_sections(std::vector<float>* values, size_t tickers, size_t days,
                              size_t columns, float missing, size_t threads = 1);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_FEATURES_H_
