// The panel's calendar: which of the file's dates are trading days.
//
// The day grid is every date kept, and a ticker without a row on a day has a
// hole there, which breaks its rolling windows and its label. So a date that
// only a few tickers trade (one ticker's stray row on a Saturday or on a
// holiday) must not become a day of the grid: it would open a hole in every
// other ticker's series. A date is kept when at least `min_names` tickers
// trade it (the floor under which no cross-section is trained or scored,
// config `min_names`), and, unless the panel trades weekends, when it is a
// weekday. A panel trades weekends when at least 10% of the dates it would
// keep fall on a Saturday or Sunday: a 7-day market has 2/7 (29%); a
// business-day panel with a few weekend dates by mistake has far fewer.
#ifndef HPO_TRAINER_CALENDAR_H_
#define HPO_TRAINER_CALENDAR_H_

#include <cstddef>

#include "trainer/panel.h"

namespace hpo::trainer {

// The share of weekend dates from which a panel counts as trading weekends.
inline constexpr double kWeekendShare = 0.10;

// Drops the dates that are not trading days, with their rows; counts them
// in panel->summary.
void apply_calendar(Panel* panel, size_t min_names);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_CALENDAR_H_
