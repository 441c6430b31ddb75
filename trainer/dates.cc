#include "trainer/dates.h"

#include <fmt/format.h>
#include <strings.h>

#include <array>
#include <cctype>
#include <cstring>

namespace hpo::trainer {

namespace {

constexpr std::array<const char*, 12> kMonths = {"jan", "feb", "mar", "apr", "may", "jun",
                                                 "jul", "aug", "sep", "oct", "nov", "dec"};

bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int64_t y, int m) {
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[size_t(m - 1)];
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil: exact for every year, no table, no time zone).
int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Reads a run of digits of length [min_len, max_len] at text[*pos].
std::optional<int> digits(const std::string& text, size_t* pos, size_t min_len, size_t max_len) {
  size_t n = 0;
  int v = 0;
  while (n < max_len && *pos + n < text.size() && std::isdigit(uint8_t(text[*pos + n])))
    v = v * 10 + (text[*pos + n++] - '0');
  if (n < min_len) return std::nullopt;
  *pos += n;
  return v;
}

std::optional<int> month_name(const std::string& text, size_t* pos) {
  if (*pos + 3 > text.size()) return std::nullopt;
  for (size_t m = 0; m < kMonths.size(); ++m)
    if (strncasecmp(text.c_str() + *pos, kMonths[m], 3) == 0) {
      *pos += 3;
      return int(m + 1);
    }
  return std::nullopt;
}

// Whether text[pos..] is a midnight time ("00:00", "00:00:00", "00:00:00.000"
// after a space or a 'T'), or nothing: pandas writes datetimes as
// "2020-01-13 00:00:00", spreadsheets as "2020-01-13T00:00:00".
bool midnight_or_end(const std::string& text, size_t pos) {
  if (pos == text.size()) return true;
  if (text[pos] != ' ' && text[pos] != 'T') return false;
  ++pos;
  auto zero_field = [&] { return digits(text, &pos, 2, 2) == 0; };
  auto next_is = [&](char c) { return pos < text.size() && text[pos] == c && ++pos; };
  if (!zero_field() || !next_is(':') || !zero_field()) return false;
  if (next_is(':')) {
    if (!zero_field()) return false;
    if (next_is('.')) {
      const size_t start = pos;
      while (pos < text.size() && text[pos] == '0') ++pos;
      if (pos == start) return false;
    }
  }
  return pos == text.size();
}

}  // namespace

std::optional<int64_t> parse_date(const std::string& text, const std::string& format) {
  std::optional<int> year, month, day;
  size_t pos = 0;
  for (size_t f = 0; f < format.size(); ++f) {
    if (format[f] != '%' || f + 1 == format.size()) {
      if (pos >= text.size() || text[pos++] != format[f]) return std::nullopt;
      continue;
    }
    std::optional<int>* field = nullptr;
    switch (format[++f]) {
      case 'Y':
        year = digits(text, &pos, 4, 4), field = &year;
        break;
      case 'm':
        month = digits(text, &pos, 1, 2), field = &month;
        break;
      case 'd':
        day = digits(text, &pos, 1, 2), field = &day;
        break;
      case 'b':
        month = month_name(text, &pos), field = &month;
        break;
      case '%':
        if (pos >= text.size() || text[pos++] != '%') return std::nullopt;
        break;
      default:
        return std::nullopt;
    }
    if (field && !*field) return std::nullopt;
  }
  if (!year || !month || !day || !midnight_or_end(text, pos)) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > days_in_month(*year, *month))
    return std::nullopt;
  return days_from_civil(*year, *month, *day);
}

std::string date_format_problem(const std::string& format) {
  bool y = false, m = false, d = false;
  for (size_t f = 0; f < format.size(); ++f) {
    if (format[f] != '%') continue;
    if (++f == format.size()) return "ends with a lone '%'";
    switch (format[f]) {
      case 'Y':
        y = true;
        break;
      case 'm':
      case 'b':
        m = true;
        break;
      case 'd':
        d = true;
        break;
      case '%':
        break;
      default:
        return fmt::format("'%{}' is not supported (only %Y, %m, %b, %d and %%)", format[f]);
    }
  }
  if (!y || !m || !d) return "needs a year (%Y), a month (%m or %b) and a day (%d)";
  return "";
}

std::string iso_date(int64_t day) {
  // H. Hinnant's civil_from_days, the inverse of days_from_civil.
  const int64_t z = day + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  return fmt::format("{:04}-{:02}-{:02}", yoe + era * 400 + (m <= 2), m, d);
}

int weekday(int64_t day) {
  // 1970-01-01 was a Thursday (3 with Monday = 0).
  return int(((day + 3) % 7 + 7) % 7);
}

}  // namespace hpo::trainer
