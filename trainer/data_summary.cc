#include "trainer/data_summary.h"

#include <fmt/format.h>

namespace hpo::trainer {

namespace {

std::string count(size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string DataSummary::warning() const {
  if (thin_dates + weekend_dates == 0) return "";
  return fmt::format(
      "warning: data: dropped {} ({}) traded by fewer than {} names (min_names) and {} ({}) on "
      "weekends, which the panel does not trade: a date few tickers trade would open a hole in "
      "every other ticker's windows and labels",
      count(thin_dates, "date", "dates"), count(thin_rows, "row", "rows"), min_names,
      count(weekend_dates, "date", "dates"), count(weekend_rows, "row", "rows"));
}

std::string DataSummary::describe(size_t warmup_days) const {
  std::string out = fmt::format(
      "{} read; dropped {} ({}) traded by fewer than {} names and {} ({}) on weekends{}; "
      "{} with a missing price (a missing day), {} read as 0; {} closed at a delisting's last "
      "print; samples start {} days after each ticker's first row",
      count(rows, "row", "rows"), count(thin_dates, "date", "dates"),
      count(thin_rows, "row", "rows"), min_names, count(weekend_dates, "date", "dates"),
      count(weekend_rows, "row", "rows"),
      trades_weekends && weekend_dates == 0 ? " (none: the panel trades weekends)" : "",
      count(missing_price_rows, "row", "rows"),
      count(missing_volumes, "missing volume", "missing volumes"),
      count(delisting_labels, "label", "labels"), warmup_days);
  if (inconsistent_rows > 0) {
    out += fmt::format(
        "; {} whose prices contradict (high below low, or open or close outside [low, high]; "
        "the first at line {}), kept as read",
        count(inconsistent_rows, "row", "rows"), first_inconsistent_line);
  }
  if (price_jumps > 0) {
    out += fmt::format(
        "; {0} that jump to more than {1:g}x, or under 1/{1:g}, of the name's previous close "
        "(unadjusted splits or bad prints? the first at line {2}), kept as read",
        count(price_jumps, "close", "closes"), kJumpFactor, first_jump_line);
  }
  return out;
}

}  // namespace hpo::trainer
