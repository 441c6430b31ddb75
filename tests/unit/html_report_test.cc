#include <doctest/doctest.h>

#include <limits>
#include <map>
#include <regex>

#include "hpo/report/html/downsample.h"
#include "hpo/report/html/importance_data.h"
#include "hpo/report/html/json_script.h"
#include "hpo/report/html/page.h"
#include "hpo/report/html/report_data.h"

namespace hpo {
namespace {

using nlohmann::json;

const std::string kHostile =
    "</script><script>window.__pwned=1</script><!-- \xE2\x80\xA8\xE2\x80\xA9 & \"'";

TEST_CASE(
    "json_for_script: no tag, comment or line separator survives, and the JSON means the same") {
  const json value = {{kHostile, kHostile}, {"list", {kHostile, 1.5}}};
  const std::string text = json_for_script(value);
  CHECK(text.find('<') == std::string::npos);
  CHECK(text.find('>') == std::string::npos);
  CHECK(text.find('&') == std::string::npos);
  CHECK(text.find("\xE2\x80\xA8") == std::string::npos);
  CHECK(text.find("\xE2\x80\xA9") == std::string::npos);
  CHECK(json::parse(text) == value);
}

TEST_CASE("json_for_script: invalid UTF-8 from a trainer becomes U+FFFD instead of an exception") {
  const std::string text = json_for_script(json{{"tail", std::string("ok \xFF\xFE end")}});
  CHECK(json::parse(text)["tail"] == "ok \xEF\xBF\xBD\xEF\xBF\xBD end");
}

TEST_CASE("html_escape escapes what could open a tag or end an attribute") {
  CHECK(html_escape("<a href=\"x\" title='y'>&</a>") ==
        "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
}

TrialRecord trial(int number, TrialState state, std::optional<double> value) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  t.value = value;
  t.datetime_start = "2026-01-02 03:04:05.500000";
  if (state != TrialState::kRunning) t.datetime_complete = "2026-01-02 03:04:15.500000";
  return t;
}

std::vector<int> numbers(const std::vector<const TrialRecord*>& ts) {
  std::vector<int> n;
  for (const auto* t : ts) n.push_back(t->number);
  return n;
}

TEST_CASE(
    "downsample keeps everything under the limit, else the best half and evenly spaced others") {
  std::vector<TrialRecord> all;
  for (int i = 0; i < 100; ++i)
    all.push_back(trial(i, TrialState::kComplete, i == 37 ? 1000.0 : i % 10));
  std::vector<const TrialRecord*> ptrs;
  for (const auto& t : all) ptrs.push_back(&t);
  CHECK(downsample(ptrs, Direction::kMaximize, 100).size() == 100);
  const auto kept = downsample(ptrs, Direction::kMaximize, 20);
  const auto n = numbers(kept);
  REQUIRE(n.size() == 20);
  CHECK(std::is_sorted(n.begin(), n.end()));
  CHECK(std::count(n.begin(), n.end(), 37) == 1);  // the best is never dropped
  // The spread half reaches both ends of the study.
  CHECK(n.front() < 10);
  CHECK(n.back() >= 80);
  const auto kept_min = numbers(downsample(ptrs, Direction::kMinimize, 20));
  CHECK(std::count(kept_min.begin(), kept_min.end(), 0) == 1);  // a 0, the lowest value
  CHECK(std::count(kept_min.begin(), kept_min.end(), 37) == 0);
}

StudyView study_with_failures() {
  StudyView view;
  view.study.name = kHostile;
  view.metric = "val_rank_ic";
  view.record = {"val_sharpe"};
  auto a = trial(0, TrialState::kComplete, 0.5);
  a.params.push_back({kHostile, FloatDistribution{1e-5, 1e-1, true, std::nullopt}, 1e-3});
  a.params.push_back(
      {"act", CategoricalDistribution{{std::string("relu"), std::string("tanh")}}, 1});
  a.user_attrs = {
      {"val_sharpe", 2.0}, {"val_rank_ic", 0.5}, {"test_rank_ic", 0.4}, {"note", "text"}};
  a.intermediate = {{0, 0.1}, {1, 0.5}};
  a.system_attrs = {{"hpo:owner", {{"host", "node-a"}, {"pid", 7}}},
                    {"hpo:slot", "gpu1.w0"},
                    {"hpo:gpu", {{"index", 1}, {"mean_util_pct", 87.5}}}};
  auto b = trial(1, TrialState::kFail, std::nullopt);
  b.system_attrs = {{"hpo:fail_kind", "oom"},
                    {"hpo:fail_reason", "oom: " + kHostile},
                    {"hpo:stderr_tail", kHostile}};
  auto c = trial(2, TrialState::kRunning, std::nullopt);
  view.trials = {a, b, c};
  return view;
}

TEST_CASE("report_data: states with OOM apart, params with their domains, metric pairs, failures") {
  const json d = report_data(study_with_failures(), 1.7e9);
  CHECK(d["study"] == kHostile);
  REQUIRE(d["params"].size() == 2);
  CHECK(d["params"][0]["name"] == kHostile);
  CHECK(d["params"][0]["log"] == true);
  CHECK(d["params"][1]["choices"] == json({"relu", "tanh"}));  // declared order
  CHECK(d["trials"][0]["p"] == json({1e-3, 1}));  // a choice by its index
  CHECK(d["trials"][1]["state"] == "OOM");
  CHECK(d["trials"][2]["state"] == "RUNNING");
  CHECK(d["trials"][2]["end"].is_null());
  // Where it ran, for the timeline.
  CHECK(d["trials"][0]["host"] == "node-a");
  CHECK(d["trials"][0]["slot"] == "gpu1.w0");
  CHECK(d["trials"][0]["gpu_util"] == 87.5);
  CHECK(d["trials"][1]["gpu_util"].is_null());
  CHECK(d["trials"][0]["end"].get<double>() - d["trials"][0]["start"].get<double>() ==
        doctest::Approx(10));
  // The objective against what it records, and validation against test.
  CHECK(d["metric_pairs"] == json::array({json::array({"val_rank_ic", "val_sharpe"}),
                                          json::array({"val_rank_ic", "test_rank_ic"})}));
  CHECK(d["trials"][0]["m"].count("note") == 0);  // not numeric, not shown
  CHECK(d["failures"]["total"] == 1);
  CHECK(d["failures"]["rows"][0]["stderr_tail"] == kHostile);
  CHECK(d["curves"]["series"].size() == 1);
  CHECK(d["best"]["n"] == 0);
}

TEST_CASE("report_page: hostile names and stderr cannot close the data element or add a script") {
  const json data = report_data(study_with_failures(), 1.7e9);
  const std::string page = report_page(data, "from " + kHostile);
  // Exactly the page's own three script elements, each closed once.
  const std::regex open("<script", std::regex::icase);
  const std::regex close("</script", std::regex::icase);
  const auto count = [&](const std::regex& re) {
    return std::distance(std::sregex_iterator(page.begin(), page.end(), re),
                         std::sregex_iterator());
  };
  CHECK(count(open) == 3);
  CHECK(count(close) == 3);
  CHECK(page.find("<title>hpo report: &lt;/script&gt;&lt;script&gt;window.__pwned=1") !=
        std::string::npos);
  // The data element holds the data, whole, without a raw line separator.
  const std::string tag = "<script type=\"application/json\" id=\"hpo-data\">";
  const size_t begin = page.find(tag) + tag.size();
  const std::string embedded = page.substr(begin, page.find("</script>", begin) - begin);
  CHECK(embedded.find("\xE2\x80\xA8") == std::string::npos);
  CHECK(json::parse(embedded) == data);
}

TEST_CASE(
    "report_data: big studies are sampled for the heavy charts, and say how many there were") {
  StudyView view;
  view.study.name = "big";
  for (int i = 0; i < 50; ++i) {
    auto t = trial(i, i % 10 == 3 ? TrialState::kFail : TrialState::kComplete, std::nullopt);
    if (t.state == TrialState::kComplete) t.value = i == 17 ? 100.0 : i * 0.1;
    t.intermediate = {{0, 1.0}};
    t.system_attrs["hpo:stderr_tail"] = std::string(10000, 'e') + "the end";
    view.trials.push_back(t);
  }
  ReportLimits limits;
  limits.curves = 10;
  limits.parallel = 8;
  limits.failures = 2;
  const json d = report_data(view, 1.7e9, limits);
  CHECK(d["trials"].size() == 50);  // the history shows every trial
  CHECK(d["curves"]["total"] == 50);
  CHECK(d["curves"]["series"].size() == 10);
  CHECK(d["parallel"]["total"] == 45);
  CHECK(d["parallel"]["trials"].size() == 8);
  CHECK(std::count(d["parallel"]["trials"].begin(), d["parallel"]["trials"].end(), 17) == 1);
  CHECK(d["failures"]["total"] == 5);
  CHECK(d["failures"]["rows"].size() == 2);
  // The stderr tail keeps its end, where the error is.
  const std::string tail = d["failures"]["rows"][0]["stderr_tail"];
  CHECK(tail.size() == 4096);
  CHECK(tail.substr(tail.size() - 7) == "the end");
}

// Issue #20: JSON has no infinities; the page must still say which value
// the best trial has rather than "null".
TEST_CASE("report_data: an infinite value is null with its value_text, for trials and the best") {
  StudyView view;
  view.study.direction = Direction::kMinimize;
  view.trials = {trial(0, TrialState::kComplete, 1.0),
                 trial(1, TrialState::kComplete, -std::numeric_limits<double>::infinity()),
                 trial(2, TrialState::kComplete, std::numeric_limits<double>::infinity())};
  const json d = report_data(view, 1.7e9);
  CHECK(d["trials"][0]["value"] == 1.0);
  CHECK(d["trials"][0].count("value_text") == 0);
  CHECK(d["trials"][1]["value"].is_null());
  CHECK(d["trials"][1]["value_text"] == "-inf");
  CHECK(d["trials"][2]["value_text"] == "+inf");
  CHECK(d["best"]["n"] == 1);  // as hpo best ranks it
  CHECK(d["best"]["value"].is_null());
  CHECK(d["best"]["value_text"] == "-inf");
}

TEST_CASE("report_data on an empty study: no trials, no best, nothing to draw but valid") {
  StudyView view;
  view.study.name = "empty";
  const json d = report_data(view, 1.7e9);
  CHECK(d["trials"].empty());
  CHECK(d["best"].is_null());
  CHECK(d["curves"]["total"] == 0);
  CHECK(d["failures"]["total"] == 0);
}

TEST_CASE("importance: a conditional parameter is ranked over the trials that hold it") {
  // model a: the value is x; model b: a constant, whatever y is. Before,
  // no trial held every parameter and nothing was ranked ("there are 0").
  const CategoricalDistribution model{{std::string("a"), std::string("b")}};
  const FloatDistribution unit{0.0, 1.0, false, std::nullopt};
  StudyView view;
  for (int i = 0; i < 60; ++i) {
    const double u = (i * 37 % 60) / 60.0;
    const bool a = i % 3 != 0;
    TrialRecord t = trial(i, TrialState::kComplete, a ? u : 0.5);
    t.params.push_back({"model", model, a ? 0.0 : 1.0});
    t.params.push_back({a ? "x" : "y", unit, u});
    t.params.push_back({"noise", unit, (i * 11 % 60) / 60.0});
    view.trials.push_back(t);
  }
  const json imp = importance_json(view, 1000);
  REQUIRE(imp.contains("params"));
  std::map<std::string, json> by_name;
  for (const auto& p : imp["params"]) by_name[p["name"]] = p;
  REQUIRE(by_name.size() == 4);
  CHECK(by_name["model"]["trials"] == 60);
  CHECK(by_name["x"]["trials"] == 40);
  CHECK(by_name["y"]["trials"] == 20);
  CHECK(imp["trials"] == 60);
  // Among the a trials x explains nearly everything; y explains nothing.
  CHECK(by_name["x"]["importance"].get<double>() > 0.8);
  CHECK(by_name["y"]["importance"].get<double>() < 0.2);
  CHECK(imp["method"].get<std::string>().find("conditional") != std::string::npos);
}

}  // namespace
}  // namespace hpo
