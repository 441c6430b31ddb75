// The trials' daily series (system attrs hpo:series:<split>, written from
// the trainers' `series` report lines), read back and aligned on the dates
// every trial has, for the sweep's overfitting statistics.
#ifndef HPO_REPORT_SWEEP_SERIES_H_
#define HPO_REPORT_SWEEP_SERIES_H_

#include <optional>
#include <string>
#include <vector>

#include "hpo/launch/report_reader.h"
#include "hpo/report/study_view.h"

namespace hpo {

// The trial's series for `split` ("valid" or "test"); nullopt if it has
// none or what is stored is not a well-formed series (then it takes no part).
std::optional<DailySeries> trial_series(const TrialRecord& trial, const std::string& split);

struct AlignedSeries {
  std::vector<const TrialRecord*> trials;  // those with a series, by number
  std::vector<DailySeries> own;  // each trial's whole series
  std::vector<std::string> dates;  // the dates all of them have
  std::vector<std::vector<double>> returns;  // [trial][common date]
  std::vector<std::vector<double>> rank_ic;  // [trial][common date], NaN where unknown
  bool dates_differ = false;  // some trial has dates others lack
};

// Every trial (any state) with a series for `split`, aligned on the
// intersection of their dates.
AlignedSeries align_series(const StudyView& view, const std::string& split);

}  // namespace hpo

#endif  // HPO_REPORT_SWEEP_SERIES_H_
