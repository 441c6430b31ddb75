// Cross-validation folds over the days before the test window (config keys
// cv_scheme, cv_folds, cv_embargo_days; docs/hpo-trainer-validation.md).
//
// The folds cut the sample dates [splits.train.begin, splits.valid.end) --
// everything the single split trains and validates on -- into blocks; the
// test window never belongs to any fold. A sample dated t reads prices up to
// t + reach (its label), so:
//   walk_forward: K + 1 equal blocks; fold k validates on block k + 1 and
//     trains on every earlier day whose label ends before that block
//     (purge), less another `embargo_days` (walk-forward never trains after
//     its validation block, so its embargo widens the gap instead).
//   purged_kfold: K equal blocks; fold k validates on block k and trains on
//     the days before it (purged as above) and on those from `reach` +
//     `embargo_days` days after its end (so no training sample's features
//     read the validation labels' prices within the embargo).
#ifndef HPO_TRAINER_CV_H_
#define HPO_TRAINER_CV_H_

#include <string>
#include <vector>

#include "trainer/splits.h"

namespace hpo::trainer {

struct CvSpec {
  std::string scheme = "none";  // none | walk_forward | purged_kfold
  int folds = 4;
  int embargo_days = 5;
  bool enabled() const { return scheme != "none"; }
};

struct Fold {
  std::vector<DayRange> train;  // one range, or two around the validation block
  DayRange valid;
  // The last day whose price any sample of the fold reads.
  size_t last_day_read(size_t reach) const;
};

// The folds of `cv` for `splits` and a label reaching `reach` days ahead.
// Throws UsageError when a fold's training or validation would be empty.
std::vector<Fold> make_folds(const Splits& splits, size_t reach, const CvSpec& cv);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_CV_H_
