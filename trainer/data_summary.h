// What reading a panel dropped or changed, and why: the trainer's "data:"
// line and --export-features print it, so that no row vanishes silently.
#ifndef HPO_TRAINER_DATA_SUMMARY_H_
#define HPO_TRAINER_DATA_SUMMARY_H_

#include <cstddef>
#include <string>

namespace hpo::trainer {

struct DataSummary {
  size_t rows = 0;  // data rows in the file
  size_t missing_price_rows = 0;  // an empty or NaN price: a missing day for that ticker
  size_t missing_volumes = 0;  // an empty or NaN volume, read as 0
  // The calendar (calendar.h): dates traded by fewer than min_names tickers,
  // and weekend dates where the panel did not trade weekends yet.
  size_t min_names = 0;
  size_t thin_dates = 0, thin_rows = 0;
  size_t weekend_dates = 0, weekend_rows = 0;
  bool trades_weekends = false;  // some weekend date was kept
  // Labels whose exit price was missing because the name stopped trading:
  // closed at its last print (features.h).
  size_t delisting_labels = 0;
  // Rows whose prices contradict each other (high below low, or open or close
  // outside [low, high]): kept as read, but counted, with the first's line.
  size_t inconsistent_rows = 0, first_inconsistent_line = 0;
  // Closes more than kJumpFactor times the name's previous close, or below
  // its 1/kJumpFactor: unadjusted splits or bad prints, kept as read, but
  // counted, with the first's line.
  size_t price_jumps = 0, first_jump_line = 0;
  static constexpr double kJumpFactor = 5.0;

  // One line: what was kept, dropped and why, with each ticker's warm-up of
  // `warmup_days` after its first row.
  std::string describe(size_t warmup_days) const;
  // The dates the calendar dropped, as a warning line; "" when none were.
  std::string warning() const;
};

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_DATA_SUMMARY_H_
