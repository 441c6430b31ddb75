#include "trainer/panel.h"

#include <doctest/doctest.h>

#include <cmath>

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

TEST_CASE("panel: bad files get clear errors") {
  const std::string header = "date,ticker,open,high,low,close,volume\n";
  CHECK(error_of("date,ticker,open,high,low,volume\n2020-01-02,A,1,1,1,1\n") ==
        ":1: missing column 'close' (need date,ticker,open,high,low,close,volume)");
  CHECK(error_of(header + "2020-01-02,A,1,1,1,1,1\n2020-01-03,A,1,abc,1,1,1\n") ==
        ":3: unparsable number 'abc' in column 'high'");
  CHECK(error_of(header + "2020-01-02,A,1,1,1,,1\n") ==
        ":2: unparsable number '' in column 'close'");
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

TEST_CASE("panel: a missing file is a usage error") {
  CHECK_THROWS_AS(read_panel_csv("/nonexistent/panel.csv"), UsageError);
}

}  // namespace
}  // namespace hpo::trainer
