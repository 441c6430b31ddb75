// hpo status's table keeps one line per trial whatever the study holds.
#include <doctest/doctest.h>

#include <algorithm>
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
