// Keeping the days that pick the epoch apart from the days that are reported.
//
// The trainer keeps the epoch with the best validation RankIC. Scored again
// on those same days, the best epoch looks better than it is: the maximum of
// several noisy scores is biased upwards, and the daily series that hpo's
// DSR and PBO read would carry that bias without counting the choice. With
// `epoch_select_frac` f > 0, the first f of each validation block's days
// pick the epoch (early stopping) and the rest, after a gap of the label's
// reach (no label of a picking day reads a price of a reported day), give
// every val_* metric and the valid series.
#ifndef HPO_TRAINER_SELECTION_H_
#define HPO_TRAINER_SELECTION_H_

#include <cstddef>

#include "trainer/splits.h"

namespace hpo::trainer {

struct ValidationParts {
  DayRange select;  // picks the epoch
  DayRange report;  // val_* metrics and the valid series
};

// Splits `valid` at its first `select_frac` of days (0 < select_frac < 1).
// Throws UsageError when either part would be empty.
ValidationParts split_validation(const DayRange& valid, size_t reach, double select_frac);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_SELECTION_H_
