#include "hpo/config/param_condition.h"

#include <doctest/doctest.h>

#include <string>

#include "hpo/config/config_error.h"
#include "hpo/config/search_space_file.h"

namespace hpo {
namespace {

const char kFile[] = "search_spaces/c.yaml";

std::string error_of(const std::string& yaml) {
  try {
    parse_search_space(yaml, kFile);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// The error names the file, the line and the key, and says what was expected.
void check_error(const std::string& yaml, const std::string& where, const std::string& what) {
  const std::string message = error_of(yaml);
  INFO("message: " << message);
  CHECK(message.rfind(std::string(kFile) + ":" + where, 0) == 0);
  CHECK(message.find(what) != std::string::npos);
}

const char kModel[] = "params:\n  model: {type: categorical, choices: [tcn, mlp, gbm]}\n";

TEST_CASE("condition: one value, a list, and chains parse") {
  const SearchSpaceConfig space = parse_search_space(
      std::string(kModel) +
          "  kernel: {type: int, low: 2, high: 7, condition: {model: tcn}}\n"
          "  hidden: {type: int, low: 8, high: 128, condition: {model: [mlp, gbm]}}\n"
          "  act: {type: categorical, choices: [relu, 1], condition: {model: mlp}}\n"
          "  slope: {type: float, low: 0.0, high: 0.3, condition: {act: relu}}\n"
          "  lr: {type: float, low: 0.001, high: 0.1, log: true}\n",
      kFile);
  REQUIRE(space.params.size() == 6);
  CHECK_FALSE(space.params[0].condition);
  REQUIRE(space.params[1].condition);
  CHECK(space.params[1].condition->parent == "model");
  CHECK(space.params[1].condition->values == std::vector<ParamValue>{std::string("tcn")});
  CHECK(space.params[2].condition->values ==
        std::vector<ParamValue>{std::string("mlp"), std::string("gbm")});
  CHECK(space.params[4].condition->parent == "act");
  CHECK_FALSE(space.params[5].condition);
}

TEST_CASE("a condition's value is compared as a choice: 64 matches 64.0") {
  const SearchSpaceConfig space = parse_search_space(
      "params:\n  width: {type: categorical, choices: [64, 128]}\n"
      "  extra: {type: int, low: 1, high: 3, condition: {width: 64.0}}\n",
      kFile);
  CHECK(space.params[1].condition->values == std::vector<ParamValue>{64.0});
}

TEST_CASE("unknown parents, parents below, cycles and non-categorical parents are errors") {
  check_error(
      std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, condition: {modle: tcn}}\n",
      "3: params.kernel.condition", "unknown parent 'modle' (did you mean 'model'?)");
  check_error(
      "params:\n  kernel: {type: int, low: 2, high: 7, condition: {model: tcn}}\n"
      "  model: {type: categorical, choices: [tcn, mlp]}\n",
      "2: params.kernel.condition", "'model' is defined below 'kernel'");
  check_error(
      "params:\n"
      "  a: {type: categorical, choices: [x, y], condition: {b: x}}\n"
      "  b: {type: categorical, choices: [x, y], condition: {a: x}}\n",
      "2: params.a.condition", "condition cycle a -> b -> a");
  check_error("params:\n  a: {type: categorical, choices: [x, y], condition: {a: x}}\n",
              "2: params.a.condition", "condition cycle a -> a");
  check_error(
      "params:\n  lr: {type: float, low: 0.1, high: 1}\n"
      "  k: {type: int, low: 2, high: 7, condition: {lr: 0.5}}\n",
      "3: params.k.condition",
      "'lr' is a float parameter; a condition's parent must be "
      "a categorical parameter defined above it");
  check_error(
      "params:\n  n: {type: int, low: 1, high: 2}\n"
      "  k: {type: int, low: 2, high: 7, condition: {n: 1}}\n",
      "3: params.k.condition", "'n' is an int parameter");
  check_error("params:\n  model: tcn\n  k: {type: int, low: 2, high: 7, condition: {model: tcn}}\n",
              "3: params.k.condition", "'model' is a fixed value");
}

TEST_CASE("a condition that can never hold is an error naming the choices") {
  check_error(
      std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, condition: {model: tcnn}}\n",
      "3: params.kernel.condition.model",
      "'tcnn' is not a choice of 'model' (tcn, mlp, gbm) (did you mean 'tcn'?), so the "
      "condition could never hold");
  check_error(std::string(kModel) +
                  "  kernel: {type: int, low: 2, high: 7,\n"
                  "           condition: {model: [tcn, rnn]}}\n",
              "4: params.kernel.condition.model[1]", "'rnn' is not a choice of 'model'");
  check_error(
      std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, condition: {model: []}}\n",
      "3: params.kernel.condition.model", "expected at least one of 'model''s choices");
}

TEST_CASE("a condition's shape, and conditions on fixed values, are errors") {
  check_error(std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, condition: tcn}\n",
              "3: params.kernel.condition", "expected one parent and its value or values");
  check_error(std::string(kModel) +
                  "  kernel: {type: int, low: 2, high: 7, condition: {model: tcn, x: 1}}\n",
              "3: params.kernel.condition", "such as {model: tcn}");
  check_error(std::string(kModel) + "  kernel: {type: fixed, value: 3, condition: {model: tcn}}\n",
              "3: params.kernel.condition", "a fixed value goes to every trial");
  check_error(
      std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, conditon: {model: tcn}}\n",
      "3: params.kernel", "did you mean 'condition'");
}

TEST_CASE("fixing a parent picks its branch: children settled, the other branch gone") {
  SearchSpaceConfig space = parse_search_space(
      std::string(kModel) +
          "  kernel: {type: int, low: 2, high: 7, condition: {model: tcn}, pinned: true}\n"
          "  hidden: {type: int, low: 8, high: 128, condition: {model: [mlp, gbm]}}\n"
          "  act: {type: categorical, choices: [relu, gelu], condition: {model: mlp}}\n"
          "  slope: {type: float, low: 0.0, high: 0.3, condition: {act: relu}}\n"
          "  lr: {type: float, low: 0.001, high: 0.1}\n",
      kFile);
  SearchSpaceConfig tcn = space;
  REQUIRE(fix_choice(tcn, "model", std::string("tcn")));
  std::vector<std::string> names;
  for (const ParamSpec& p : tcn.params) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"kernel", "lr"});
  CHECK_FALSE(tcn.params[0].condition);  // always sampled now
  CHECK(tcn.pinned == std::vector<std::string>{"kernel"});
  SearchSpaceConfig mlp = space;
  REQUIRE(fix_choice(mlp, "model", std::string("mlp")));
  names.clear();
  for (const ParamSpec& p : mlp.params) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"hidden", "act", "slope", "lr"});
  CHECK(mlp.params[2].condition->parent == "act");  // a grandchild keeps its own condition
  CHECK(mlp.pinned.empty());
  // Only a categorical, and only to one of its choices.
  SearchSpaceConfig unchanged = space;
  CHECK_FALSE(fix_choice(unchanged, "model", std::string("rnn")));
  CHECK_FALSE(fix_choice(unchanged, "lr", 0.01));
  CHECK(unchanged.params.size() == space.params.size());
}

}  // namespace
}  // namespace hpo
