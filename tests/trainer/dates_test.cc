// The date parser (trainer/dates.h): dates are read as day numbers, so two
// spellings of one date are one date and dates sort as time does.
#include "trainer/dates.h"

#include <doctest/doctest.h>

namespace hpo::trainer {
namespace {

TEST_CASE("dates: ISO dates, with or without padding or a midnight time, are one day") {
  const int64_t day = parse_date("2020-01-13").value();
  CHECK(day == 18274);  // 50 years and 12 leap days after 1970-01-01, plus 12 days
  for (const char* same : {"2020-1-13", "2020-01-13 00:00:00", "2020-01-13T00:00:00",
                           "2020-01-13 00:00", "2020-01-13 00:00:00.000"}) {
    CAPTURE(same);
    CHECK(parse_date(same) == day);
  }
  CHECK(iso_date(day) == "2020-01-13");
  CHECK(weekday(day) == 0);  // a Monday
  CHECK(weekday(parse_date("2020-01-11").value()) == 5);  // a Saturday
}

TEST_CASE("dates: day numbers sort as time does, where text does not") {
  CHECK(parse_date("2020-1-6").value() < parse_date("2020-1-10").value());
  CHECK(parse_date("10/01/2020", "%m/%d/%Y").value() <
        parse_date("01/01/2021", "%m/%d/%Y").value());
  CHECK(parse_date("10/01/2020", "%m/%d/%Y") == parse_date("2020-10-01"));
  CHECK(parse_date("01.10.2020", "%d.%m.%Y") == parse_date("2020-10-01"));
  CHECK(parse_date("01-Oct-2020", "%d-%b-%Y") == parse_date("2020-10-01"));
  CHECK(parse_date("2000-03-01").value() - parse_date("2000-02-28").value() == 2);  // leap
  CHECK(parse_date("1900-03-01").value() - parse_date("1900-02-28").value() == 1);  // not leap
  // Every 997th day of the years 1 to 9999 (4-digit years) reads back.
  for (int64_t d = -719162; d < 2932897; d += 997) CHECK(parse_date(iso_date(d)) == d);
}

TEST_CASE("dates: anything else is no date") {
  for (const char* bad : {"", "2020-13-01", "2020-02-30", "2021-02-29", "2020-01-13x",
                          "2020-01-13 09:30:00", "2020-01-13 00:00:01", "2020/01/13", "20-01-13",
                          "13/01/2020", "2020-01-13 ", "2020-01-13T", "2020-01-13 00"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_date(bad).has_value());
  }
  CHECK_FALSE(parse_date("13/25/2020", "%m/%d/%Y").has_value());
  CHECK_FALSE(parse_date("2020-10-01", "%m/%d/%Y").has_value());
  CHECK_FALSE(parse_date("31.02.2020", "%d.%m.%Y").has_value());
}

TEST_CASE("dates: a format needs a year, a month and a day, in codes it knows") {
  CHECK(date_format_problem("%Y-%m-%d") == "");
  CHECK(date_format_problem("%m/%d/%Y") == "");
  CHECK(date_format_problem("%d-%b-%Y") == "");
  CHECK(date_format_problem("%Y-%m") != "");
  CHECK(date_format_problem("%Y-%j") != "");
  CHECK(date_format_problem("%Y-%m-%d %H:%M") != "");
  CHECK(date_format_problem("%Y-%m-%d%") != "");
}

}  // namespace
}  // namespace hpo::trainer
