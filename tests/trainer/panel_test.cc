#include "trainer/panel.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/trainer/test_util.h"
#include "trainer/error.h"

namespace hpo::trainer {
namespace {

using testing::TempDir;

std::string error_of(const std::string& text) {
  return testing::usage_error("p.csv", text, [](const std::string& path) { read_panel_csv(path); });
}

TEST_CASE("panel: rows in any order, columns in any order, missing days") {
  TempDir dir;
  std::string path = dir.write("p.csv",
                               "ticker,volume,date,close,open,high,low,extra\n"
                               "BBB,10,2020-01-03,12,11,13,10,x\n"
                               "AAA,5,2020-01-02,2,1,3,0.5,x\r\n"
                               "AAA,6,2020-01-03,2.5,2,3,2,x\n"
                               "\n");
  Panel p = read_panel_csv(path);
  REQUIRE(p.num_days() == 2);
  REQUIRE(p.num_tickers() == 2);
  CHECK(p.dates[0] == "2020-01-02");
  CHECK(p.tickers[1] == "BBB");
  CHECK(p.close[p.index(0, 1)] == doctest::Approx(2.5));
  CHECK(p.volume[p.index(1, 1)] == doctest::Approx(10));
  CHECK(p.open[p.index(1, 1)] == doctest::Approx(11));
  CHECK_FALSE(p.present(1, 0));  // BBB has no row on 2020-01-02
  CHECK(std::isnan(p.close[p.index(1, 0)]));
}

// What spreadsheets and other tools write: a UTF-8 byte-order mark ("CSV
// UTF-8"), capitalized names, every field quoted.
TEST_CASE("panel: a byte-order mark, names in any case and quoted fields read as plain ones") {
  TempDir dir;
  const std::string plain = dir.write("plain.csv",
                                      "date,ticker,open,high,low,close,volume\n"
                                      "2020-01-02,AAPL,1,2,0.5,1.5,100\n"
                                      "2020-01-03,AAPL,1.5,2,1,1.8,120\n");
  const std::string excel =
      dir.write("excel.csv",
                "\xEF\xBB\xBF\"Date\",\"Ticker\",\"Open\",\"High\",\"Low\","
                "\"Close\",\"Volume\"\r\n"
                "\"2020-01-02\",\"AAPL\",\"1\",\"2\",\"0.5\",\"1.5\",\"100\"\r\n"
                "2020-01-03,AAPL,1.5,2,1,1.8,120\r\n");
  const Panel a = read_panel_csv(plain), b = read_panel_csv(excel);
  CHECK(b.tickers == a.tickers);  // "AAPL" quoted and unquoted: one ticker
  CHECK(b.dates == a.dates);
  CHECK(b.close == a.close);
  CHECK(b.volume == a.volume);
}

// pandas' to_csv quotes a field that holds a comma or a quote (RFC 4180): an
// extra column such as a company's name must not shift the others.
TEST_CASE("panel: quoted fields may hold commas and doubled quotes") {
  TempDir dir;
  const std::string plain = dir.write("plain.csv",
                                      "date,ticker,open,high,low,close,volume,name\n"
                                      "2020-01-02,AAPL,1,2,0.5,1.5,100,Apple\n"
                                      "2020-01-02,A;B,1,2,0.5,1.6,90,AB\n"
                                      "2020-01-03,AAPL,1,2,0.5,1.7,110,Apple\n"
                                      "2020-01-03,A;B,1.5,2,1,1.8,120,AB\n");
  const std::string quoted =
      dir.write("quoted.csv",
                "date,ticker,open,high,low,close,volume,name\n"
                "2020-01-02,AAPL,1,2,0.5,1.5,100,\"Apple, Inc.\"\n"
                "2020-01-02,\"A,B\",1,2,0.5,1.6,90,\"The \"\"AB\"\", Co.\"\n"
                "\"2020-01-03\",AAPL,1,2,0.5,1.7,110,\"Apple, Inc.\"\n"
                "2020-01-03, \"A,B\" ,1.5,2,1,1.8,120,\"The \"\"AB\"\", Co.\"\n");
  const Panel a = read_panel_csv(plain), b = read_panel_csv(quoted);
  CHECK(b.tickers == std::vector<std::string>{"A,B", "AAPL"});
  CHECK(a.tickers == std::vector<std::string>{"A;B", "AAPL"});
  CHECK(b.dates == a.dates);
  CHECK(b.close == a.close);
  CHECK(b.volume == a.volume);
  CHECK(error_of("date,ticker,open,high,low,close,volume,name\n"
                 "2020-01-02,AAPL,1,2,0.5,1.5,100,\"Apple,\n"
                 "Inc.\"\n") ==
        ":2: a quoted field is not closed on this line (a field with a line "
        "break in it is not read)");
}

// A vendor's glitch (high below low, a close above the high) is kept as read
// but counted, so that the "data:" line says the file has them.
TEST_CASE("panel: rows whose prices contradict are counted, with the first's line") {
  TempDir dir;
  const std::string path = dir.write("p.csv",
                                     "date,ticker,open,high,low,close,volume\n"
                                     "2020-01-02,A,1,2,0.5,1.5,100\n"
                                     "2020-01-03,A,1.5,1,2,1.8,120\n"  // high below low
                                     "2020-01-06,A,1.5,2,1,2.5,120\n"  // close above high
                                     "2020-01-07,A,1,1,1,1,120\n");  // flat: consistent
  const Panel p = read_panel_csv(path);
  CHECK(p.summary.inconsistent_rows == 2);
  CHECK(p.summary.first_inconsistent_line == 3);
  CHECK(p.close[p.index(0, 2)] == doctest::Approx(2.5));  // kept as read
  CHECK(p.summary.describe(79).find("2 rows whose prices contradict (high below low, or open or "
                                    "close outside [low, high]; the first at line 3)") !=
        std::string::npos);
}

// A close five times its name's previous one, or a fifth of it, is a split
// the vendor did not adjust, or a bad print: either way the label and the
// features around it are not what the model should learn, so the "data:"
// line counts them. The previous close is the name's last one before, across
// missing days, whatever the rows' order in the file.
TEST_CASE("panel: closes that jump 5x from the name's previous close are counted") {
  TempDir dir;
  const std::string path =
      dir.write("p.csv",
                "date,ticker,open,high,low,close,volume\n"
                "2020-01-08,A,100,700,100,600,1\n"  // x6 from 01-06 (line 2)
                "2020-01-02,A,100,100,100,100,1\n"
                "2020-01-03,A,100,500,100,500,1\n"  // x5 exactly: not counted
                "2020-01-06,A,100,100,100,100,1\n"  // /5 exactly
                "2020-01-07,A,,,,,\n"  // a missing day: 01-08 compares with 01-06
                "2020-01-09,A,100,600,100,110,1\n"  // /5.45 (line 7)
                "2020-01-02,B,1,1,1,1,1\n"  // B's own series: no jump
                "2020-01-03,B,1,1,1,1,1\n");
  const Panel p = read_panel_csv(path);
  CHECK(p.summary.price_jumps == 2);
  CHECK(p.summary.first_jump_line == 2);
  CHECK(p.close[p.index(0, 4)] == doctest::Approx(600));  // kept as read
  CHECK(p.summary.describe(79).find("2 closes that jump to more than 5x, or under 1/5, of the "
                                    "name's previous close (unadjusted splits or bad prints? the "
                                    "first at line 2), kept as read") != std::string::npos);
  // Absurd magnitudes beside sane prices: the case that prompted it.
  const Panel q = read_panel_csv(dir.write("q.csv",
                                           "date,ticker,open,high,low,close,volume\n"
                                           "2020-01-02,A,140,141,139,140,1\n"
                                           "2020-01-03,A,140,1e300,139,1e300,1\n"
                                           "2020-01-06,A,140,141,139,140,1\n"));
  CHECK(q.summary.price_jumps == 2);
  CHECK(q.summary.first_jump_line == 3);
  const Panel clean = read_panel_csv(dir.write("c.csv",
                                               "date,ticker,open,high,low,close,volume\n"
                                               "2020-01-02,A,140,141,139,140,1\n"
                                               "2020-01-03,A,140,300,139,280,1\n"));
  CHECK(clean.summary.price_jumps == 0);
  CHECK(clean.summary.describe(79).find("jump") == std::string::npos);
}

TEST_CASE("panel: write then read round-trips") {
  TempDir dir;
  std::string path =
      dir.write("p.csv", "date,ticker,open,high,low,close,volume\n2020-01-02,A,1,2,0.5,1.5,100\n");
  Panel p = read_panel_csv(path);
  write_panel_csv(p, dir.file("q.csv"));
  Panel q = read_panel_csv(dir.file("q.csv"));
  CHECK(q.tickers == p.tickers);
  CHECK(q.close == p.close);
}

TEST_CASE(
    "panel: a data file that cannot be opened says why, and where a relative one was sought") {
  auto message = [](const std::string& path) {
    try {
      read_panel_csv(path);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  char cwd[4096];
  REQUIRE(::getcwd(cwd, sizeof cwd) != nullptr);
  const std::string relative = message("no_such_dir_hpo/prices.csv");
  CHECK(relative == fmt::format("no_such_dir_hpo/prices.csv: cannot open the data file: No such "
                                "file or directory (a relative path is read from the working "
                                "directory, {})",
                                cwd));
  // An absolute path needs no working directory; a directory is not a file.
  CHECK(message("/no_such_dir_hpo/prices.csv") ==
        "/no_such_dir_hpo/prices.csv: cannot open the data file: No such file or directory");
  TempDir dir;
  CHECK(message(dir.path()) == dir.path() + ": cannot open the data file: it is a directory");
}

TEST_CASE("panel: bad files get clear errors") {
  const std::string header = "date,ticker,open,high,low,close,volume\n";
  CHECK(error_of("date,ticker,open,high,low,volume\n2020-01-02,A,1,1,1,1\n") ==
        ":1: missing column 'close' (need date,ticker,open,high,low,close,volume; the header "
        "reads 'date,ticker,open,high,low,volume')");
  // A semicolon-separated file (a European spreadsheet's): the header shown, the cause named.
  CHECK(error_of("date;ticker;open;high;low;close;volume\n") ==
        ":1: missing column 'date' (need date,ticker,open,high,low,close,volume; the header reads "
        "'date;ticker;open;high;low;close;volume'); the file must be comma-separated");
  CHECK(error_of("date,ticker,close,open,high,low,close,volume\n2020-01-02,A,1,1,1,1,1,1\n") ==
        ":1: column 'close' appears twice");
  CHECK(error_of(header + "2020-01-02,A,1,1,1,1,1\n2020-01-03,A,1,abc,1,1,1\n") ==
        ":3: unparsable number 'abc' in column 'high'");
  CHECK(error_of(header + "2020-01-02,A,1,1,1,x,1\n") ==
        ":2: unparsable number 'x' in column 'close'");
  // strtod reads C's hexadecimal floats; a data file's "0x10" is a typo, not 16.
  CHECK(error_of(header + "2020-01-02,A,1,1,1,0x1p3,1\n") ==
        ":2: unparsable number '0x1p3' in column 'close'");
  CHECK(error_of(header + "2020-01-02,A,1,1,1,1,0X10\n") ==
        ":2: unparsable number '0X10' in column 'volume'");
  CHECK(error_of(header + "2020-1-32,A,1,1,1,1,1\n") ==
        ":2: '2020-1-32' is not a date of the form YYYY-MM-DD (set date_format for other "
        "spellings, e.g. date_format: \"%m/%d/%Y\")");
  CHECK(error_of(header + "2020-01-02 09:30:00,A,1,1,1,1,1\n").find("'2020-01-02 09:30:00'") !=
        std::string::npos);
  // One date spelled two ways is one date: the second row is a duplicate.
  CHECK(error_of(header + "2020-01-13,A,1,1,1,1,1\n2020-1-13 00:00:00,A,1,1,1,1,1\n") ==
        ":3: duplicate (date, ticker) (2020-01-13, A), first at line 2");
  CHECK(error_of(header + "2020-01-02,A,1,1,0,1,1\n") ==
        ":2: non-positive price 0 in column 'low'");
  CHECK(error_of(header + "2020-01-02,A,1,1,1,-3,1\n") ==
        ":2: non-positive price -3 in column 'close'");
  CHECK(error_of(header + "2020-01-02,A,1,1,1,1,-1\n") == ":2: negative volume -1");
  CHECK(error_of(header +
                 "2020-01-02,A,1,1,1,1,1\n2020-01-03,A,1,1,1,1,1\n2020-01-02,A,2,2,2,2,2\n") ==
        ":4: duplicate (date, ticker) (2020-01-02, A), first at line 2");
  CHECK(error_of(header + "2020-01-02,A,1,1,1,1\n") == ":2: expected 7 fields, found 6");
  CHECK(error_of(header) == ": no data rows");
  CHECK(error_of("") == ": empty file, expected a header line");
}

// pandas writes a missing value as an empty field or as its na_rep "NaN":
// a missing price is a missing day for that ticker, a missing volume is 0.
TEST_CASE("panel: empty and NaN fields are missing days and zero volumes, counted") {
  TempDir dir;
  const std::string path = dir.write("p.csv",
                                     "date,ticker,open,high,low,close,volume\n"
                                     "2020-01-02,A,1,1,1,1,5\n"
                                     "2020-01-03,A,1,1,1,,5\n"
                                     "2020-01-06,A,NaN,1,1,1,\n"
                                     "2020-01-02,B,1,1,1,1,nan\n"
                                     "2020-01-03,B,1,1,1,1,\n");
  const Panel p = read_panel_csv(path);
  REQUIRE(p.num_days() == 3);
  CHECK(p.present(0, 0));
  CHECK_FALSE(p.present(0, 1));
  CHECK_FALSE(p.present(0, 2));
  CHECK(p.volume[p.index(1, 0)] == 0);
  CHECK(p.volume[p.index(1, 1)] == 0);
  CHECK(p.summary.rows == 5);
  CHECK(p.summary.missing_price_rows == 2);
  CHECK(p.summary.missing_volumes == 2);  // the row without a price is a missing day, not a volume
}

// Dates are read as dates: US dates sort by time, not as text, and equal
// their ISO spelling.
TEST_CASE("panel: date_format reads other spellings, sorted as dates") {
  TempDir dir;
  const std::string path = dir.write("p.csv",
                                     "date,ticker,open,high,low,close,volume\n"
                                     "01/04/2021,A,1,1,1,1,5\n"
                                     "10/01/2020,A,1,1,1,1,5\n"
                                     "12/31/2020,A,1,1,1,1,5\n");
  const Panel p = read_panel_csv(path, "%m/%d/%Y");
  CHECK(p.dates == std::vector<std::string>{"2020-10-01", "2020-12-31", "2021-01-04"});
  CHECK(testing::usage_error("p.csv",
                             "date,ticker,open,high,low,close,volume\n2020-10-01,A,1,1,1,1,1\n",
                             [](const std::string& f) { read_panel_csv(f, "%m/%d/%Y"); }) ==
        ":2: '2020-10-01' is not a date of date_format '%m/%d/%Y'");
}

TEST_CASE("panel: a missing file is a usage error") {
  CHECK_THROWS_AS(read_panel_csv("/nonexistent/panel.csv"), UsageError);
}

}  // namespace
}  // namespace hpo::trainer
