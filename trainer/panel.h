// A daily OHLCV panel: every (ticker, date) on a dense grid, NaN where a
// ticker has no row that day.
#ifndef HPO_TRAINER_PANEL_H_
#define HPO_TRAINER_PANEL_H_

#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "trainer/data_summary.h"
#include "trainer/dates.h"

namespace hpo::trainer {

struct Panel {
  std::vector<std::string> dates;  // ISO, ascending (read as dates: dates.h)
  std::vector<std::string> tickers;  // ascending
  // Each field holds tickers x days values, ticker-major: index(ticker, day).
  std::vector<double> open, high, low, close, volume;
  DataSummary summary;  // what reading it dropped and why

  size_t num_days() const { return dates.size(); }
  size_t num_tickers() const { return tickers.size(); }
  size_t index(size_t ticker, size_t day) const { return ticker * dates.size() + day; }
  bool present(size_t ticker, size_t day) const { return !std::isnan(close[index(ticker, day)]); }

  // Sizes the fields for the current dates and tickers, all missing.
  void allocate();
};

// Reads `date,ticker,open,high,low,close,volume` (any column order, extra
// columns ignored, rows in any order), dates spelled as `date_format` says
// (dates.h). An empty or NaN price makes the row a missing day for its
// ticker, an empty or NaN volume is 0 (pandas writes missing values so);
// `summary` counts both. Throws UsageError naming the file and line for a
// missing column, a date that is not one, an unparsable number, a
// non-positive price, a negative volume or a duplicate (date, ticker), also
// when the two rows spell the date differently.
Panel read_panel_csv(const std::string& path, const std::string& date_format = kIsoDate);

// The bytes of data file `path`, read whole. Throws read_panel_csv's
// UsageError for a path that is missing, a directory or unreadable.
std::string read_data_file(const std::string& path);

// Parses `bytes`, read from `path` (which errors name), as read_panel_csv
// parses the file: the feature cache parses the very bytes it hashed.
Panel parse_panel_csv(const std::string& path, std::string_view bytes,
                      const std::string& date_format = kIsoDate);

// Writes the present rows, sorted by date then ticker.
void write_panel_csv(const Panel& panel, const std::string& path);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_PANEL_H_
