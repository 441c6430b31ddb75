// The panel's calendar: which of the file's dates are trading days.
//
// The day grid is every date kept, and a ticker without a row on a day has a
// hole there, which breaks its rolling windows and its label. So a date that
// only a few tickers trade (one ticker's stray row on a Saturday or on a
// holiday) must not become a day of the grid: it would open a hole in every
// other ticker's series. A date is kept when at least `min_names` tickers
// trade it (the floor under which no cross-section is trained or scored,
// config `min_names`), and, when it falls on a Saturday or Sunday, only where
// the panel trades weekends by then: when at least 3 of the last 30 dates
// kept for their names up to it (itself included) are weekend dates. A 7-day
// market has about 8 in 30, and its first two weekend dates are dropped; a
// business-day panel with a stray weekend date has 1. Only earlier dates
// decide: rows added after day t never change whether t is a trading day (a
// rule over the whole file's weekend share did: a panel that began trading
// weekends later kept its early stray Saturdays).
#ifndef HPO_TRAINER_CALENDAR_H_
#define HPO_TRAINER_CALENDAR_H_

#include <cstddef>

#include "trainer/panel.h"

namespace hpo::trainer {

// A weekend date is a trading day when at least kWeekendsInWindow of the
// last kWeekendWindow dates up to it are weekend dates.
inline constexpr size_t kWeekendWindow = 30;
inline constexpr size_t kWeekendsInWindow = 3;

// Drops the dates that are not trading days, with their rows; counts them
// in panel->summary.
void apply_calendar(Panel* panel, size_t min_names);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_CALENDAR_H_
