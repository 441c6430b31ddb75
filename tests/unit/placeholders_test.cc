#include "hpo/config/placeholders.h"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "hpo/config/config_error.h"

namespace hpo {
namespace {

const std::map<std::string, std::string> kVars = {
    {"config", "runs/s/trial_3/config.json"},
    {"trial_dir", "runs/s/trial_3"},
    {"trial_number", "3"},
};

std::string placeholder_error(const std::string& token) {
  try {
    expand_placeholders(token, kVars);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST_CASE("placeholders expand as whole arguments and inside arguments") {
  const std::vector<std::string> argv = {"hpo-trainer", "--config", "{config}", "--out={trial_dir}",
                                         "t{trial_number}-{trial_number}"};
  const std::vector<std::string> expected = {
      "hpo-trainer", "--config", "runs/s/trial_3/config.json", "--out=runs/s/trial_3", "t3-3"};
  CHECK(expand_command(argv, kVars) == expected);
}

TEST_CASE("values are inserted as plain text, never re-expanded or quoted") {
  const std::map<std::string, std::string> vars = {{"config", "a b;{trial_dir}$(x)"}};
  CHECK(expand_placeholders("{config}", vars) == "a b;{trial_dir}$(x)");
}

TEST_CASE("doubled braces are literal braces") {
  CHECK(expand_placeholders("{{config}}", kVars) == "{config}");
  CHECK(expand_placeholders("{{{trial_number}}}", kVars) == "{3}");
  CHECK(expand_placeholders("json={{\"a\": 1}}", kVars) == "json={\"a\": 1}");
  CHECK(expand_placeholders("", kVars).empty());
}

TEST_CASE("unknown placeholders are errors with a suggestion") {
  const std::string message = placeholder_error("--out={trial_dri}");
  CHECK(message.find("unknown placeholder '{trial_dri}'") != std::string::npos);
  CHECK(message.find("did you mean 'trial_dir'?") != std::string::npos);
  CHECK(placeholder_error("{}").find("unknown placeholder '{}'") != std::string::npos);
}

TEST_CASE("unbalanced braces are errors") {
  CHECK(placeholder_error("--out={trial_dir").find("'{' without '}'") != std::string::npos);
  CHECK(placeholder_error("{a{config}").find("'{' without '}'") != std::string::npos);
  CHECK(placeholder_error("x}").find("'}' without '{'") != std::string::npos);
  CHECK(placeholder_error("{config}}").find("'}' without '{'") != std::string::npos);
}

TEST_CASE("validation knows the placeholders a study may use") {
  for (const std::string& name : known_placeholders()) {
    CHECK_NOTHROW(validate_placeholders("--x={" + name + "}"));
  }
  CHECK(known_placeholders().size() == 5);
  CHECK_NOTHROW(validate_placeholders("{study_dir}/train.sh"));
  CHECK_NOTHROW(validate_placeholders("plain {{text}}"));
  CHECK_THROWS_AS(validate_placeholders("{confg}"), ConfigError);
  CHECK_THROWS_AS(validate_placeholders("{config"), ConfigError);
  try {
    validate_placeholders("{confg}");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("did you mean 'config'?") != std::string::npos);
    CHECK(std::string(e.what()).find("{study_dir}") != std::string::npos);  // lists the known ones
  }
}

}  // namespace
}  // namespace hpo
