// Calendar dates read from a panel's date column, as day numbers: days
// since 1970-01-01, so that dates sort and compare as numbers whatever their
// spelling (text order puts 01/01/2021 before 10/01/2020, and 2020-1-10
// before 2020-1-6).
#ifndef HPO_TRAINER_DATES_H_
#define HPO_TRAINER_DATES_H_

#include <cstdint>
#include <optional>
#include <string>

namespace hpo::trainer {

// The default date format: ISO 8601's YYYY-MM-DD (month and day may be
// unpadded), optionally followed by a midnight time.
inline constexpr const char* kIsoDate = "%Y-%m-%d";

// The day number of `text` read by `format`, a strftime-like pattern of
// %Y (4-digit year), %m (month, 1 or 2 digits), %d (day, 1 or 2 digits),
// %b (English month abbreviation), %% and literal characters. Any format
// accepts a trailing midnight time: " 00:00", " 00:00:00" or "T00:00:00"
// with optional fractional seconds. Nothing for anything else: an invalid
// date (2021-02-29), trailing text, or a time other than midnight.
std::optional<int64_t> parse_date(const std::string& text, const std::string& format = kIsoDate);

// Why `format` cannot be used, or "" when it can (config validation).
std::string date_format_problem(const std::string& format);

// The ISO spelling of a day number: YYYY-MM-DD.
std::string iso_date(int64_t day);

// Day of the week of a day number, 0 = Monday .. 6 = Sunday.
int weekday(int64_t day);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_DATES_H_
