// hpo status's table keeps one line per trial whatever the study holds.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "hpo/report/status_table.h"
#include "hpo/report/study_view.h"

namespace hpo {
namespace {

// A study of one COMPLETE trial whose categorical choice and note are `text`.
std::string table_with(const std::string& text) {
  StudyView view;
  view.study.name = "s";
  view.metric = "score";
  TrialRecord t;
  t.state = TrialState::kComplete;
  t.value = 0.5;
  t.params.push_back({"act", CategoricalDistribution{{ParamValue(text), ParamValue("relu")}}, 0});
  t.system_attrs["hpo:fail_reason"] = text;
  view.trials.push_back(t);
  return status_table(view);
}

TEST_CASE("control bytes in a trial's values are escaped, never break the table's lines") {
  const std::string plain = table_with("ab");
  const auto lines = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n'); };
  for (const std::string& text :
       std::vector<std::string>{"a\nb", "a\r\nb", "a\tb", "a\x1b[31mb", std::string("a\0b", 3)}) {
    CAPTURE(text);
    const std::string table = table_with(text);
    CHECK(lines(table) == lines(plain));
    CHECK(table.find('\x1b') == std::string::npos);
    CHECK(table.find('\r') == std::string::npos);
    CHECK(table.find('\t') == std::string::npos);
  }
  CHECK(table_with("a\nb").find("a\\nb") != std::string::npos);
  CHECK(table_with("a\\nb").find("a\\\\nb") != std::string::npos);  // typed, not a newline
  CHECK(table_with("a\\nb") != table_with("a\nb"));
  CHECK(table_with("a\x1b[31mb").find("a\\x1b[31mb") != std::string::npos);
}

TEST_CASE("controls sent as UTF-8, and bytes that are not UTF-8, are escaped too") {
  // C1 CSI (0x9b), NEL (0x85), the line separator, a right-to-left override,
  // a lone continuation byte, a truncated sequence, an overlong '/'.
  const std::vector<std::pair<std::string, std::string>> cases = {{"a\xc2\x9b"
                                                                   "31mb",
                                                                   "a\\u009b31mb"},
                                                                  {"a\xc2\x85"
                                                                   "b",
                                                                   "a\\u0085b"},
                                                                  {"a\xe2\x80\xa8"
                                                                   "b",
                                                                   "a\\u2028b"},
                                                                  {"a\xe2\x80\xae"
                                                                   "b",
                                                                   "a\\u202eb"},
                                                                  {"a\x9b"
                                                                   "b",
                                                                   "a\\x9bb"},
                                                                  {"a\xe2\x80", "a\\xe2\\x80"},
                                                                  {"a\xc0\xaf", "a\\xc0\\xaf"}};
  for (const auto& [text, shown] : cases) {
    CAPTURE(shown);
    const std::string table = table_with(text);
    CHECK(table.find(shown) != std::string::npos);
    CHECK(table.find(text) == std::string::npos);
  }
  // Printable UTF-8 passes as it is.
  CHECK(table_with("r\xc3\xa9lu \xce\xb1\xe2\x82\xac").find("r\xc3\xa9lu \xce\xb1\xe2\x82\xac") !=
        std::string::npos);
}

TEST_CASE("columns line up by characters, not bytes") {
  StudyView view;
  view.study.name = "s";
  view.metric = "score";
  const Distribution act =
      CategoricalDistribution{{ParamValue("ab"), ParamValue("\xce\xb1\xce\xb2")}};
  for (int i = 0; i < 2; ++i) {
    TrialRecord t;
    t.number = i;
    t.state = TrialState::kComplete;
    t.value = 0.5;
    t.params.push_back({"act", act, static_cast<double>(i)});
    view.trials.push_back(t);
  }
  const std::string table = status_table(view);
  INFO(table);
  // Both rows end where the duration column's padding ends: the same
  // number of characters, though αβ takes twice the bytes of ab.
  std::vector<long> lengths;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("0  ", 0) != 0 && line.rfind("1  ", 0) != 0) continue;
    lengths.push_back(std::count_if(line.begin(), line.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
    }));
  }
  REQUIRE(lengths.size() == 2);
  CHECK(lengths[0] == lengths[1]);
}

TEST_CASE("a PRUNED trial's note gives its step, from its curve when Optuna pruned it") {
  StudyView view;
  view.study.name = "s";
  view.metric = "score";
  TrialRecord t;
  t.state = TrialState::kPruned;
  t.intermediate = {{0, 0.1}, {3, 0.2}};
  view.trials.push_back(t);  // Optuna's: no hpo:pruned_at_step
  t.number = 1;
  t.system_attrs["hpo:pruned_at_step"] = 2;
  view.trials.push_back(t);
  t.number = 2;
  t.system_attrs.clear();
  t.intermediate.clear();
  view.trials.push_back(t);
  const std::string table = status_table(view);
  CHECK(table.find("pruned at step 3\n") != std::string::npos);
  CHECK(table.find("pruned at step 2\n") != std::string::npos);
  CHECK(table.find("pruned\n") != std::string::npos);
  CHECK(table.find("pruned at step \n") == std::string::npos);
}

}  // namespace
}  // namespace hpo
