#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "hpo/launch/report_reader.h"

namespace hpo {
namespace {

ReportEvent series_line(const std::string& fields) {
  return parse_report_line(R"({"type": "series", )" + fields + "}", 7);
}

TEST_CASE("series lines parse into a split's dates, returns and RankICs") {
  const auto e =
      series_line(R"("split": "valid", "dates": ["2021-03-01", "2021-03-02", "2021-03-04"],
                               "returns": [0.01, -0.002, 0], "rank_ic": [0.05, NaN, "nan"])");
  REQUIRE(e.kind == ReportEvent::Kind::kSeries);
  CHECK(e.line == 7);
  CHECK(e.series.split == "valid");
  CHECK(e.series.dates == std::vector<std::string>{"2021-03-01", "2021-03-02", "2021-03-04"});
  CHECK(e.series.returns == std::vector<double>{0.01, -0.002, 0});
  CHECK(e.series.rank_ic[0] == 0.05);
  CHECK(std::isnan(e.series.rank_ic[1]));
  CHECK(series_line(R"("split": "test", "dates": ["2022-01-03"], "returns": [1], "rank_ic": [0])")
            .kind == ReportEvent::Kind::kSeries);
}

TEST_CASE("bad series lines fail the trial, saying what was expected") {
  struct Case {
    const char* fields;
    const char* problem;
  };
  const Case cases[] = {
      {R"("split": "train", "dates": ["2021-03-01"], "returns": [0], "rank_ic": [0])",
       "\"split\" must be \"valid\" or \"test\""},
      {R"("split": "valid", "dates": [], "returns": [], "rank_ic": [])",
       "non-empty array of ISO dates"},
      {R"("split": "valid", "dates": ["2021-3-1"], "returns": [0], "rank_ic": [0])",
       "dates[0] = \"2021-3-1\" is not an ISO date"},
      {R"("split": "valid", "dates": ["2021-13-01"], "returns": [0], "rank_ic": [0])",
       "not an ISO date"},
      {R"("split": "valid", "dates": ["2021-03-02", "2021-03-01"], "returns": [0, 0], "rank_ic": [0, 0])",
       "strictly increasing; dates[1] = \"2021-03-01\" follows \"2021-03-02\""},
      {R"("split": "valid", "dates": ["2021-03-01", "2021-03-01"], "returns": [0, 0], "rank_ic": [0, 0])",
       "strictly increasing"},
      {R"("split": "valid", "dates": ["2021-03-01", "2021-03-02"], "returns": [0], "rank_ic": [0, 0])",
       "\"returns\" has 1 values for 2 dates; expected one per date"},
      {R"("split": "valid", "dates": ["2021-03-01"], "returns": [0], "rank_ic": [0, 0])",
       "\"rank_ic\" has 2 values for 1 dates"},
      {R"("split": "valid", "dates": ["2021-03-01"], "returns": [NaN], "rank_ic": [0])",
       "returns[0] is \"NaN\"; expected a finite number"},
      {R"("split": "valid", "dates": ["2021-03-01"], "returns": [0], "rank_ic": [Infinity])",
       "rank_ic[0] is \"Infinity\"; expected a finite number or NaN"},
      {R"("split": "valid", "dates": ["2021-03-01"], "returns": ["x"], "rank_ic": [0])",
       "returns[0] = \"x\" is not a number"},
      {R"("split": "valid", "dates": ["2021-03-01"], "rank_ic": [0])",
       "\"returns\" must be an array"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.fields);
    const auto e = series_line(c.fields);
    CHECK(e.kind == ReportEvent::Kind::kInvalid);
    CHECK(e.fails_trial);
    CHECK(e.line == 7);
    CHECK(e.problem.find("series line: ") == 0);
    CHECK(e.problem.find(c.problem) != std::string::npos);
  }
  // Other bad lines are skipped, not fatal.
  CHECK_FALSE(parse_report_line("hello", 1).fails_trial);
}

}  // namespace
}  // namespace hpo
