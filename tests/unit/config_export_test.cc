#include "hpo/report/config_export.h"

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace hpo {
namespace {

// The float of YAML 1.1's core schema, which PyYAML's safe_load and Go's
// yaml.v2 implement: a dot is required and an exponent has its sign, so
// "5e-06" is a string there, and "1" an integer.
const std::regex kYaml11Float(R"([-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?)");

TrialRecord trial_with(const nlohmann::json& config) {
  TrialRecord t;
  t.number = 3;
  t.state = TrialState::kComplete;
  t.value = 0.1;
  t.system_attrs["hpo:config"] = config;
  return t;
}

// The value text that config_yaml wrote for `key`.
std::string written(const std::string& yaml, const std::string& key) {
  const std::string at = "\n" + key + ": ";
  const size_t from = yaml.find(at);
  REQUIRE(from != std::string::npos);
  const size_t begin = from + at.size();
  return yaml.substr(begin, yaml.find('\n', begin) - begin);
}

TEST_CASE("an exported YAML config's floats are floats to YAML 1.1 readers, and exact") {
  std::vector<double> values = {5e-06,       1e-05, 1.0,    0.0,      -2.0, 1e20,
                                123456789.0, 0.1,   3e-300, -4.5e-07, 2.5,  1e16};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200; ++i) {
    const double v = std::ldexp(std::uniform_real_distribution<double>(1, 2)(rng),
                                std::uniform_int_distribution<int>(-60, 60)(rng));
    values.push_back(i % 2 ? v : -v);
  }
  nlohmann::json config = {{"model", "tcn"}, {"epochs", 5}};
  for (size_t i = 0; i < values.size(); ++i) config["v" + std::to_string(i)] = values[i];
  StudyView view;
  view.study.name = "s";
  view.metric = "m";
  const std::string yaml = config_yaml(view, trial_with(config));
  const YAML::Node read = YAML::Load(yaml);
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string key = "v" + std::to_string(i), text = written(yaml, key);
    CAPTURE(text);
    CHECK(std::regex_match(text, kYaml11Float));
    CHECK(std::strtod(text.c_str(), nullptr) == values[i]);  // the same double back
    CHECK(read[key].as<double>() == values[i]);  // and so for yaml-cpp (hpo-trainer)
  }
  // Integers stay integers, strings strings.
  CHECK(written(yaml, "epochs") == "5");
  CHECK(written(yaml, "model") == "\"tcn\"");
}

}  // namespace
}  // namespace hpo
