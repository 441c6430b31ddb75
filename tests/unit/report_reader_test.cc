#include "hpo/launch/report_reader.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

namespace hpo {
namespace {

std::string temp_path(const char* name) {
  return std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/hpo_test_" +
         std::to_string(::getpid()) + "_" + name;
}

TEST_CASE("epoch and final lines parse into events") {
  auto e = parse_report_line(
      R"({"type": "epoch", "step": 2, "metrics": {"val_rank_ic": 0.05, "loss": 1}})", 3);
  REQUIRE(e.kind == ReportEvent::Kind::kEpoch);
  CHECK(e.step == 2);
  CHECK(e.line == 3);
  CHECK(e.metrics.at("val_rank_ic") == doctest::Approx(0.05));
  CHECK(e.metrics.at("loss") == 1.0);

  e = parse_report_line(
      R"({"type":"final","metrics":{"val_rank_ic":0.1,"val_sharpe":-Infinity,"x":NaN}})", 1);
  REQUIRE(e.kind == ReportEvent::Kind::kFinal);
  CHECK(std::isinf(e.metrics.at("val_sharpe")));
  CHECK(e.metrics.at("val_sharpe") < 0);
  CHECK(std::isnan(e.metrics.at("x")));
}

TEST_CASE("bad report lines are invalid with a reason") {
  struct Case {
    const char* line;
    const char* problem;
  };
  const Case cases[] = {
      {"hello", "not JSON"},
      {"[1, 2]", "not a JSON object"},
      {R"({"metrics": {}})", "missing \"type\""},
      {R"({"type": "epoch", "metrics": {}})", "\"step\""},
      {R"({"type": "epoch", "step": -1, "metrics": {}})", "\"step\""},
      {R"({"type": "bogus", "metrics": {}})", "unknown type"},
      {R"({"type": "final"})", "missing \"metrics\""},
      {R"({"type": "final", "metrics": {"a": "high"}})", "metric \"a\" is not a number"},
  };
  for (const auto& c : cases) {
    const auto e = parse_report_line(c.line, 7);
    CHECK_MESSAGE(e.kind == ReportEvent::Kind::kInvalid, c.line);
    CHECK_MESSAGE(e.problem.find(c.problem) != std::string::npos, c.line, " -> ", e.problem);
  }
}

TEST_CASE("a string containing NaN is not rewritten") {
  const auto e = parse_report_line(R"({"type": "final", "metrics": {"NaN\"x": 1}})", 1);
  REQUIRE(e.kind == ReportEvent::Kind::kFinal);
  CHECK(e.metrics.count("NaN\"x") == 1);
}

TEST_CASE("reader returns only complete new lines, across calls") {
  const auto path = temp_path("report.jsonl");
  std::remove(path.c_str());
  ReportReader reader(path);
  CHECK(reader.read_new().empty());  // file not there yet

  std::ofstream out(path);
  out << R"({"type": "epoch", "step": 0, "metrics": {"m": 1}})"
      << "\n"
      << R"({"type": "epoch", "st)";
  out.flush();
  auto events = reader.read_new();
  REQUIRE(events.size() == 1);
  CHECK(events[0].step == 0);

  out << R"(ep": 1, "metrics": {"m": 2}})"
      << "\n\n"
      << "garbage\n"
      << R"({"type":"final","metrics":{"m":3}})";
  out.flush();
  events = reader.read_new();
  REQUIRE(events.size() == 2);
  CHECK(events[0].step == 1);
  CHECK(events[0].line == 2);
  CHECK(events[1].kind == ReportEvent::Kind::kInvalid);
  CHECK(events[1].line == 4);

  events = reader.read_new(/*at_eof=*/true);  // the unterminated last line
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == ReportEvent::Kind::kFinal);
  CHECK(events[0].metrics.at("m") == 3);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace hpo
