#include "hpo/storage/optuna_codec.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <regex>
#include <stdexcept>

#include "hpo/report/study_view.h"

namespace hpo {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Distribution round_trip(const Distribution& dist) {
  return decode_distribution(encode_distribution(dist));
}

TEST_CASE("distributions encode exactly as Optuna 3.1 writes them") {
  CHECK(
      encode_distribution(FloatDistribution{5e-06, 0.005, true, std::nullopt}) ==
      R"({"name": "FloatDistribution", "attributes": {"step": null, "low": 5e-06, "high": 0.005, "log": true}})");
  CHECK(
      encode_distribution(FloatDistribution{0.0, 1.0, false, 0.25}) ==
      R"({"name": "FloatDistribution", "attributes": {"step": 0.25, "low": 0.0, "high": 1.0, "log": false}})");
  CHECK(
      encode_distribution(IntDistribution{1, 10, false, 3}) ==
      R"({"name": "IntDistribution", "attributes": {"log": false, "step": 3, "low": 1, "high": 10}})");
  CHECK(encode_distribution(CategoricalDistribution{{int64_t{64}, int64_t{128}, int64_t{256}}}) ==
        R"({"name": "CategoricalDistribution", "attributes": {"choices": [64, 128, 256]}})");
  CHECK(
      encode_distribution(
          CategoricalDistribution{{std::string("relu"), std::monostate{}, true, 1.5}}) ==
      R"({"name": "CategoricalDistribution", "attributes": {"choices": ["relu", null, true, 1.5]}})");
}

TEST_CASE("each distribution kind round-trips through distribution_json") {
  const Distribution kinds[] = {
      FloatDistribution{5e-06, 0.005, true, std::nullopt},
      FloatDistribution{-1.5, 2.5, false, 0.5},
      FloatDistribution{0.1, 0.9, false, std::nullopt},
      IntDistribution{1, 10, false, 3},
      IntDistribution{8, 512, true, 1},
      CategoricalDistribution{{std::string("a"), true, false, std::monostate{}, int64_t{3}, 0.5}},
  };
  for (const auto& dist : kinds) {
    CAPTURE(encode_distribution(dist));
    CHECK(round_trip(dist) == dist);
  }
}

TEST_CASE("integer choices stay integers") {
  const auto dist = std::get<CategoricalDistribution>(
      round_trip(CategoricalDistribution{{int64_t{64}, 2.0, std::string("64")}}));
  REQUIRE(dist.choices.size() == 3);
  CHECK(std::holds_alternative<int64_t>(dist.choices[0]));
  CHECK(std::holds_alternative<double>(dist.choices[1]));  // 2.0 stays a float, as in Python
  CHECK(std::holds_alternative<std::string>(dist.choices[2]));
  CHECK(param_value_to_json(int64_t{64}).dump() == "64");
  CHECK(param_value_to_json(2.0).dump() == "2.0");
}

TEST_CASE("Optuna's legacy distribution names decode to the modern ones") {
  CHECK(decode_distribution(
            R"({"name": "UniformDistribution", "attributes": {"low": 0.0, "high": 2.0}})") ==
        Distribution{FloatDistribution{0.0, 2.0, false, std::nullopt}});
  CHECK(decode_distribution(
            R"({"name": "LogUniformDistribution", "attributes": {"low": 1e-05, "high": 1.0}})") ==
        Distribution{FloatDistribution{1e-05, 1.0, true, std::nullopt}});
  CHECK(
      decode_distribution(
          R"({"name": "DiscreteUniformDistribution", "attributes": {"low": 0.0, "high": 1.0, "q": 0.1}})") ==
      Distribution{FloatDistribution{0.0, 1.0, false, 0.1}});
  CHECK(
      decode_distribution(
          R"({"name": "IntUniformDistribution", "attributes": {"low": 2, "high": 12, "step": 2}})") ==
      Distribution{IntDistribution{2, 12, false, 2}});
  CHECK(decode_distribution(
            R"({"name": "IntUniformDistribution", "attributes": {"low": 2, "high": 12}})") ==
        Distribution{IntDistribution{2, 12, false, 1}});
  CHECK(
      decode_distribution(
          R"({"name": "IntLogUniformDistribution", "attributes": {"low": 1, "high": 64, "step": 1}})") ==
      Distribution{IntDistribution{1, 64, true, 1}});
  CHECK(decode_distribution(R"({"type": "int", "low": 0, "high": 5})") ==
        Distribution{IntDistribution{0, 5, false, 1}});
}

TEST_CASE("bad distribution_json is rejected") {
  CHECK_THROWS_AS(decode_distribution("not json"), std::invalid_argument);
  CHECK_THROWS_AS(decode_distribution(R"({"name": "BetaDistribution", "attributes": {}})"),
                  std::invalid_argument);
  CHECK_THROWS_AS(decode_distribution(R"({"name": "FloatDistribution", "attributes": {"low": 0}})"),
                  std::invalid_argument);
  CHECK_THROWS_AS(decode_distribution(
                      R"({"name": "CategoricalDistribution", "attributes": {"choices": [[1]]}})"),
                  std::invalid_argument);
}

TEST_CASE("values encode with Optuna's value types") {
  CHECK(encode_value(0.5).type == "FINITE");
  CHECK(encode_value(0.5).value == 0.5);
  CHECK(encode_value(kInf).type == "INF_POS");
  CHECK_FALSE(encode_value(kInf).value.has_value());
  CHECK(encode_value(-kInf).type == "INF_NEG");
  CHECK_FALSE(encode_value(-kInf).value.has_value());
  CHECK(encode_value(std::nan("")).type == "NAN");
  CHECK_FALSE(encode_value(std::nan("")).value.has_value());

  CHECK(decode_value(0.25, "FINITE") == 0.25);
  CHECK(decode_value(std::nullopt, "INF_POS") == kInf);
  CHECK(decode_value(std::nullopt, "INF_NEG") == -kInf);
  CHECK(std::isnan(decode_value(std::nullopt, "NAN")));
  CHECK_THROWS_AS(decode_value(std::nullopt, "FINITE"), std::invalid_argument);
  CHECK_THROWS_AS(decode_value(1.0, "BIG"), std::invalid_argument);
}

TEST_CASE("attribute JSON is written as Python's json.dumps writes it") {
  CHECK(to_python_json(nlohmann::json("bar")) == R"("bar")");
  CHECK(to_python_json(nlohmann::json(1.2)) == "1.2");
  CHECK(to_python_json(nlohmann::json::parse(R"([1, {"a": "b\u00e4r"}])")) ==
        R"([1, {"a": "b\u00e4r"}])");
  CHECK(to_python_json(nlohmann::json(kInf)) == "Infinity");
  CHECK(from_python_json("Infinity").get<double>() == kInf);
  CHECK(std::isnan(from_python_json("NaN").get<double>()));
  CHECK(from_python_json(R"("b\u00e4r")").get<std::string>() == "b\xc3\xa4r");
  CHECK_THROWS_AS(from_python_json("{"), std::invalid_argument);
}

// Optuna stores a user attr [0.1, nan] as Python's json.dumps writes it,
// tokens inside the list: a study holding one could not be read at all.
TEST_CASE("Python's NaN and Infinity tokens are read inside lists and dicts too") {
  const nlohmann::json v = from_python_json(
      R"({"curve": [0.1, NaN, Infinity, -Infinity], "note": "NaN, Infinity", "n": {"x": -Infinity}})");
  REQUIRE(v["curve"].size() == 4);
  CHECK(v["curve"][0].get<double>() == 0.1);
  CHECK(std::isnan(v["curve"][1].get<double>()));
  CHECK(v["curve"][2].get<double>() == kInf);
  CHECK(v["curve"][3].get<double>() == -kInf);
  CHECK(v["note"] == "NaN, Infinity");  // strings stay strings
  CHECK(v["n"]["x"].get<double>() == -kInf);
  CHECK(from_python_json(R"(["a\"NaN", NaN])")[0] == "a\"NaN");  // an escaped quote in a string
  // What hpo writes, it reads back.
  const nlohmann::json round = from_python_json(to_python_json(v));
  CHECK(round["curve"][2].get<double>() == kInf);
  CHECK(to_python_json(round) == to_python_json(v));
  CHECK_THROWS_AS(from_python_json("[NaNa]"), std::invalid_argument);
  CHECK_THROWS_AS(from_python_json("[Nan]"), std::invalid_argument);
}

TEST_CASE("datetimes are naive UTC, as Optuna stores them, whatever the local zone") {
  const std::string s = format_datetime(std::chrono::system_clock::now());
  CHECK(std::regex_match(s, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6})")));
  const auto t = std::chrono::system_clock::time_point(std::chrono::microseconds(1234567));
  const char* old = std::getenv("TZ");
  const std::string saved = old ? old : "";
  setenv("TZ", "Etc/GMT-14", 1);  // UTC+14
  tzset();
  CHECK(format_datetime(t) == "1970-01-01 00:00:01.234567");
  CHECK(datetime_seconds("1970-01-01 00:00:01.234567") == doctest::Approx(1.234567));
  if (old)
    setenv("TZ", saved.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
}

}  // namespace
}  // namespace hpo
