// Time-ordered train / valid / test splits with no look-ahead.
//
// Each split is a block of consecutive sample dates. A sample dated t has a
// label that reads prices up to day t + reach (label_reach: the horizon, plus
// one when the position is entered the next day), so the next block starts
// `reach` days after the last sample date of the previous one: no label of an
// earlier split sees a price from a later split's sample dates. Features
// only look backwards, so they never cross forward into a later split.
#ifndef HPO_TRAINER_SPLITS_H_
#define HPO_TRAINER_SPLITS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trainer/features.h"

namespace hpo::trainer {

struct DayRange {
  size_t begin = 0, end = 0;  // sample dates [begin, end)
  size_t size() const { return end > begin ? end - begin : 0; }
};

struct Splits {
  DayRange train, valid, test;
};

// Splits the days after the warm-up (`first_day`) by the fractions, leaving a
// gap of `reach` days between blocks. Throws UsageError, naming the data by
// `source`, when a block would be empty.
Splits make_splits(size_t num_days, size_t first_day, size_t reach, double train_frac,
                   double valid_frac, const std::string& source = "data");

// One sample: the ticker and its date (the last day of its lookback window).
struct Sample {
  uint32_t ticker, day;
};

// The samples dated in `range`, ticker-major order: (ticker, t) whose label
// exists (the ticker has a row that day and the label's reach lies inside
// the panel, both known on that day: features.cc's label_at, so a name that
// delists or halts later is not dropped in advance), whose own warm-up is
// over (t >= its first row + kLongestWindow + lookback - 1: every feature of
// its lookback window has its full history; a late lister's do not before),
// on days with at least fs.min_names such samples (the floor evaluation
// uses too, so training and scoring see one universe).
std::vector<Sample> samples_in(const FeatureSet& fs, const DayRange& range, size_t lookback = 1);

// The samples of every k-th date of `samples` (whole cross-sections, so
// daily scores stay meaningful), counted from the first date that has any,
// for a validation window `range` capped at about `max` samples (0: all).
// k is fixed by what that first date knows: its names times the window's
// days from it, over `max`. So whether a date is scored never depends on a
// later day's rows (a name listed or delisted later in the window). Keeps at most `max` plus one
// date's names while the universe holds steady, more if it grows; a cap below the first date's
// names keeps that whole date alone.
std::vector<Sample> thin_dates(const std::vector<Sample>& samples, const DayRange& range,
                               int64_t max);

// Days a ticker's samples start after its first row, for `lookback`.
size_t warmup_days(size_t lookback);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_SPLITS_H_
