#include "hpo/config/search_space_file.h"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "hpo/config/config_error.h"
#include "hpo/config/param_condition.h"

namespace hpo {
namespace {

const char kFile[] = "search_spaces/x.yaml";

SearchSpaceConfig parse(const std::string& yaml) { return parse_search_space(yaml, kFile); }

// The message of the ConfigError that parsing `yaml` throws.
std::string space_error(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// Each error must name the file and line, the key, and what was expected.
void check_space_error(const std::string& yaml, const std::string& where, const std::string& what) {
  const std::string message = space_error(yaml);
  INFO("message: " << message);
  CHECK(message.rfind(std::string(kFile) + ":" + where, 0) == 0);
  CHECK(message.find(what) != std::string::npos);
}

const ParamValue& choice(const SearchSpaceConfig& space, size_t param, size_t index) {
  return std::get<CategoricalDistribution>(space.params.at(param).distribution).choices.at(index);
}

TEST_CASE("pinned: true keeps a parameter's domain from GPU profiles") {
  const SearchSpaceConfig space = parse(
      "params:\n"
      "  batch_size: {type: categorical, choices: [64, 128], pinned: true}\n"
      "  hidden_size: {type: int, low: 8, high: 64, pinned: false}\n"
      "  lr: {type: float, low: 0.001, high: 0.1, pinned: true}\n");
  CHECK(space.pinned == std::vector<std::string>{"batch_size", "lr"});
  check_space_error(
      "params:\n  batch_size: {type: categorical, choices: [64], pinned: yes please}\n",
      "2: params.batch_size.pinned", "expected true or false");
  check_space_error("params:\n  model: {type: fixed, value: tcn, pinned: true}\n",
                    "2: params.model", "pinned");
}

TEST_CASE("every parameter type parses") {
  const SearchSpaceConfig space = parse(R"(
params:
  batch_size:  {type: categorical, choices: [256, 512]}
  lr:          {type: float, low: 5.0e-6, high: 5e-3, log: true}
  dropout:     {type: float, low: 0, high: 0.3, step: 0.05}
  layers:      {type: int, low: 2, high: 6}
  heads:       {type: int, low: 2, high: 8, step: 2}
  width:       {type: int, low: 1, high: 1024, log: true}
  same:        {type: int, low: 3, high: 3}
  model:       {type: fixed, value: tcn}
  epochs:      5
)");
  CHECK(space.path == kFile);
  REQUIRE(space.params.size() == 7);
  CHECK(std::get<CategoricalDistribution>(space.params[0].distribution) ==
        CategoricalDistribution{{int64_t{256}, int64_t{512}}});
  CHECK(std::get<FloatDistribution>(space.params[1].distribution) ==
        FloatDistribution{5e-6, 5e-3, true, std::nullopt});
  CHECK(std::get<FloatDistribution>(space.params[2].distribution) ==
        FloatDistribution{0.0, 0.3, false, 0.05});
  CHECK(std::get<IntDistribution>(space.params[3].distribution) == IntDistribution{2, 6, false, 1});
  CHECK(std::get<IntDistribution>(space.params[4].distribution) == IntDistribution{2, 8, false, 2});
  CHECK(std::get<IntDistribution>(space.params[5].distribution) ==
        IntDistribution{1, 1024, true, 1});
  CHECK(std::get<IntDistribution>(space.params[6].distribution) == IntDistribution{3, 3, false, 1});
  const FixedValues fixed = {{"model", std::string("tcn")}, {"epochs", int64_t{5}}};
  CHECK(space.fixed == fixed);
}

TEST_CASE("parameters keep file order, not alphabetical order") {
  const SearchSpaceConfig space = parse(R"(
params:
  zeta: {type: int, low: 0, high: 1}
  alpha: {type: int, low: 0, high: 1}
  mid: {type: int, low: 0, high: 1}
  z_fixed: 1
  a_fixed: 2
)");
  REQUIRE(space.params.size() == 3);
  CHECK(space.params[0].name == "zeta");
  CHECK(space.params[1].name == "alpha");
  CHECK(space.params[2].name == "mid");
  REQUIRE(space.fixed.size() == 2);
  CHECK(space.fixed[0].first == "z_fixed");
  CHECK(space.fixed[1].first == "a_fixed");
}

TEST_CASE("choices are typed: int, float, bool, null, string") {
  const SearchSpaceConfig space = parse(R"(
params:
  c: {type: categorical, choices: [64, 64.5, 1e-3, -7, true, False, ~, "null", "64", relu, '1.5', .inf]}
)");
  CHECK(std::get<int64_t>(choice(space, 0, 0)) == 64);
  CHECK(std::get<double>(choice(space, 0, 1)) == 64.5);
  CHECK(std::get<double>(choice(space, 0, 2)) == 1e-3);
  CHECK(std::get<int64_t>(choice(space, 0, 3)) == -7);
  CHECK(std::get<bool>(choice(space, 0, 4)) == true);
  CHECK(std::get<bool>(choice(space, 0, 5)) == false);
  CHECK(std::holds_alternative<std::monostate>(choice(space, 0, 6)));
  CHECK(std::get<std::string>(choice(space, 0, 7)) == "null");
  CHECK(std::get<std::string>(choice(space, 0, 8)) == "64");
  CHECK(std::get<std::string>(choice(space, 0, 9)) == "relu");
  CHECK(std::get<std::string>(choice(space, 0, 10)) == "1.5");
  CHECK(std::isinf(std::get<double>(choice(space, 0, 11))));
}

TEST_CASE("64.0 is a float choice and 5e-6 a float bound") {
  const SearchSpaceConfig space = parse(
      "params:\n  c: {type: categorical, choices: [64.0]}\n"
      "  f: {type: float, low: 5e-6, high: 1E+2}\n"
      "  g: {type: float, low: 1e-999, high: +.5}\n");
  CHECK(std::get<double>(choice(space, 0, 0)) == 64.0);
  CHECK(std::get<FloatDistribution>(space.params[1].distribution).low == 5e-6);
  CHECK(std::get<FloatDistribution>(space.params[1].distribution).high == 100.0);
  CHECK(std::get<FloatDistribution>(space.params[2].distribution).low == 0.0);  // underflows to 0
  CHECK(std::get<FloatDistribution>(space.params[2].distribution).high == 0.5);
}

TEST_CASE("fixed values keep their type, null included when explicit") {
  const SearchSpaceConfig space = parse(R"(
params:
  a: {type: fixed, value: 0.5}
  b: {type: fixed, value: "5"}
  c: {type: fixed, value: ~}
  d: true
)");
  const FixedValues expected = {
      {"a", 0.5}, {"b", std::string("5")}, {"c", std::monostate{}}, {"d", true}};
  CHECK(space.fixed == expected);
}

TEST_CASE("wrong value types name file, line, key and what was expected") {
  check_space_error("params:\n  lr: {type: float, low: abc, high: 1}\n", "2: params.lr.low",
                    "expected a number, got 'abc'");
  check_space_error("params:\n  lr: {type: float, low: '0.1', high: 1}\n", "2: params.lr.low",
                    "expected a number, got '0.1'");  // quoted is a string
  check_space_error("params:\n  n: {type: int, low: 1.5, high: 4}\n", "2: params.n.low",
                    "expected an integer, got '1.5'");
  check_space_error("params:\n  n: {type: int, low: 1, high: 4.0}\n", "2: params.n.high",
                    "expected an integer, got '4.0'");
  check_space_error("params:\n  n: {type: int, low: 1, high: 4, log: yes}\n", "2: params.n.log",
                    "expected true or false, got 'yes'");
  check_space_error(
      "params:\n  lr: [1, 2]\n", "2: params.lr",
      "expected a parameter such as {type: float, low: 0, high: 1} or a fixed value, got a list");
  check_space_error("params:\n  lr:\n", "2: params.lr", "got nothing");
  check_space_error("params: [a, b]\n", "1: params", "expected a mapping, got a list");
  check_space_error("params:\n  c: {type: categorical, choices: 5}\n", "2: params.c.choices",
                    "expected a list, got '5'");
  check_space_error("params:\n  c: {type: categorical, choices: [[1]]}\n", "2: params.c.choices[0]",
                    "expected a single value, got a list");
  check_space_error("params:\n  m: {type: fixed, value: {a: 1}}\n", "2: params.m.value",
                    "expected a single value, got a mapping");
  check_space_error("params:\n  m: {type: 3}\n", "2: params.m.type", "unknown type '3'");
}

TEST_CASE("bounds in the wrong order") {
  check_space_error("params:\n  lr:\n    type: float\n    low: 1\n    high: 1\n",
                    "5: params.lr.high",
                    "a float parameter needs low < high, got low '1' and high '1'");
  check_space_error("params:\n  n: {type: int, low: 5, high: 4}\n", "2: params.n.high",
                    "an int parameter needs low <= high, got low '5' and high '4'");
  CHECK_NOTHROW(parse("params:\n  n: {type: int, low: 4, high: 4}\n"));
}

TEST_CASE("log scales need positive bounds and no step") {
  check_space_error("params:\n  lr: {type: float, low: 0, high: 1, log: true}\n",
                    "2: params.lr.low", "must be > 0 with log: true, got '0'");
  check_space_error("params:\n  n: {type: int, low: -1, high: 4, log: true}\n", "2: params.n.low",
                    "must be > 0 with log: true, got '-1'");
  check_space_error("params:\n  lr: {type: float, low: 1, high: 2, log: true, step: 0.5}\n",
                    "2: params.lr.step", "step cannot be combined with log: true");
  check_space_error("params:\n  n: {type: int, low: 1, high: 8, log: true, step: 1}\n",
                    "2: params.n.step", "step cannot be combined with log: true");
  CHECK_NOTHROW(parse("params:\n  n: {type: int, low: 1, high: 8, log: false, step: 7}\n"));
}

TEST_CASE("steps must be positive and divide the range") {
  check_space_error("params:\n  d: {type: float, low: 0, high: 1, step: 0}\n", "2: params.d.step",
                    "must be > 0, got '0'");
  check_space_error("params:\n  d: {type: float, low: 0, high: 1, step: -0.5}\n",
                    "2: params.d.step", "must be > 0, got '-0.5'");
  check_space_error("params:\n  d: {type: float, low: 0, high: 1, step: 0.3}\n", "2: params.d.step",
                    "step '0.3' does not divide high - low (1)");
  check_space_error("params:\n  n: {type: int, low: 0, high: 10, step: 3}\n", "2: params.n.step",
                    "step '3' does not divide high - low (10)");
  check_space_error("params:\n  n: {type: int, low: 0, high: 10, step: -2}\n", "2: params.n.step",
                    "must be > 0, got '-2'");
  // 1e300 grid points: a trial's value fell outside [low, high] at the first store.
  check_space_error("params:\n  d: {type: float, low: 0, high: 1, step: 1.0e-300}\n",
                    "2: params.d.step", "makes more than 1e15 grid points");
  CHECK_NOTHROW(parse("params:\n  d: {type: float, low: 0, high: 1, step: 1.0e-9}\n"));
  // 0.3 / 0.1 is 2.9999999999999996 in binary floating point.
  CHECK_NOTHROW(parse("params:\n  d: {type: float, low: 0, high: 0.3, step: 0.1}\n"));
  CHECK_NOTHROW(parse("params:\n  d: {type: float, low: 0.1, high: 0.7, step: 0.2}\n"));
}

TEST_CASE("non-finite and overflowing bounds") {
  check_space_error("params:\n  x: {type: float, low: .nan, high: 1}\n", "2: params.x.low",
                    "expected a finite number, got '.nan'");
  check_space_error("params:\n  x: {type: float, low: 0, high: .inf}\n", "2: params.x.high",
                    "expected a finite number, got '.inf'");
  check_space_error("params:\n  x: {type: float, low: -.Inf, high: 0}\n", "2: params.x.low",
                    "expected a finite number");
  check_space_error("params:\n  x: {type: float, low: 0, high: 1e999}\n", "2: params.x.high",
                    "expected a finite number");
  check_space_error("params:\n  n: {type: int, low: 0, high: 9223372036854775808}\n",
                    "2: params.n.high", "integer 9223372036854775808 is out of range");
  check_space_error("params:\n  n: {type: int, low: -9223372036854775809, high: 0}\n",
                    "2: params.n.low", "out of range");
  // Values are stored as doubles: bounds past 2^53 would come back as other
  // integers (and their width overflowed the samplers' int64 arithmetic).
  check_space_error(
      "params:\n  n: {type: int, low: -9223372036854775808, high: 9223372036854775807}\n",
      "2: params.n.low", "must lie within -2^53..2^53 (9007199254740992)");
  check_space_error("params:\n  n: {type: int, low: 0, high: 9007199254740993}\n",
                    "2: params.n.high", "must lie within -2^53..2^53");
  CHECK_NOTHROW(
      parse("params:\n  n: {type: int, low: -9007199254740992, high: 9007199254740992}\n"));
  check_space_error(
      "params:\n  n: {type: int, low: -9007199254740992, high: 9007199254740991, step: 2}\n",
      "2: params.n.step", "does not divide high - low (18014398509481983)");
}

TEST_CASE("choices must be present, non-empty and distinct") {
  check_space_error("params:\n  c: {type: categorical, choices: []}\n", "2: params.c.choices",
                    "expected at least one choice, got an empty list");
  check_space_error("params:\n  c: {type: categorical, choices: [1, 2, 1]}\n",
                    "2: params.c.choices[2]", "duplicate choice '1'");
  check_space_error("params:\n  c: {type: categorical, choices: [64, 64.0]}\n",
                    "2: params.c.choices[1]", "duplicate choice '64.0'");
  check_space_error("params:\n  c: {type: categorical, choices: [a, \"a\"]}\n",
                    "2: params.c.choices[1]", "duplicate choice 'a'");
  check_space_error("params:\n  c: {type: categorical, choices: [~, null]}\n",
                    "2: params.c.choices[1]", "duplicate choice null");
  check_space_error("params:\n  c: {type: categorical, choices: [.nan]}\n",
                    "2: params.c.choices[0]", "NaN cannot be a choice");
  // A bool and a number, or a number and its quoted text, are different choices.
  CHECK(parse("params:\n  c: {type: categorical, choices: [1, true, '1', ~]}\n").params.size() ==
        1);
}

TEST_CASE("a parameter name is no empty string") {
  check_space_error("params:\n  '': {type: float, low: 0, high: 1}\n", "2: params.",
                    "expected a parameter name, got an empty name");
  check_space_error("params:\n  \"a\\tb\": {type: float, low: 0, high: 1}\n", "2: params.",
                    "control character");
  CHECK_NOTHROW(parse("params:\n  a b: {type: float, low: 0, high: 1}\n"));
}

TEST_CASE("a parameter given twice is an error, not silently one of them") {
  check_space_error("params:\n  lr: {type: float, low: 0.1, high: 1}\n  lr: 5\n", "3: params.lr",
                    "given twice (first at line 2)");
  check_space_error("params:\n  lr: {type: float, low: 0.1, low: 0.2, high: 1}\n",
                    "2: params.lr.low", "given twice");
}

TEST_CASE("unknown keys are errors with the closest known key suggested") {
  check_space_error("params:\n  c: {type: categorical, choises: [1]}\n", "2: params.c",
                    "unknown key 'choises' (did you mean 'choices'?)");
  check_space_error("params:\n  lr:\n    type: float\n    low: 0.1\n    hihg: 1\n", "5: params.lr",
                    "unknown key 'hihg' (did you mean 'high'?)");
  check_space_error("parms:\n  x: 1\n", "1", "unknown key 'parms' (did you mean 'params'?)");
  check_space_error("params:\n  x: {type: fixed, value: 1, extra: 2}\n", "2: params.x",
                    "unknown key 'extra' (known keys: type, value)");
  check_space_error("params:\n  x: {type: flaot, low: 0, high: 1}\n", "2: params.x.type",
                    "unknown type 'flaot' (did you mean 'float'?)");
  // A key of another type is unknown to this one.
  check_space_error("params:\n  x: {type: int, low: 0, high: 1, choices: [1]}\n", "2: params.x",
                    "unknown key 'choices'");
}

TEST_CASE("missing required keys") {
  check_space_error("params:\n  x: {low: 0, high: 1}\n", "2: params.x",
                    "missing required key 'type' (float, int, categorical or fixed)");
  check_space_error("params:\n  x: {type: float, high: 1}\n", "2: params.x",
                    "missing required key 'low'");
  check_space_error("params:\n  x: {type: int, low: 1}\n", "2: params.x",
                    "missing required key 'high'");
  check_space_error("params:\n  x: {type: categorical}\n", "2: params.x",
                    "missing required key 'choices'");
  check_space_error("params:\n  x: {type: fixed}\n", "2: params.x", "missing required key 'value'");
  check_space_error("# nothing but a comment? no: a key\nother: 1\n", "2", "unknown key 'other'");
  check_space_error("description: x\n", "1", "unknown key 'description'");
  check_space_error("params: {}\n", "1: params", "expected at least one parameter");
}

TEST_CASE("malformed, empty and non-mapping files") {
  check_space_error("params:\n  x: {type: float, low: 0\n", "", "invalid YAML");
  check_space_error("params:\n  x: [1, 2\n  y: 3\n", "", "invalid YAML");
  const std::string bad_indent = space_error("params:\n  a: 1\n b: 2\n");
  CHECK(bad_indent.rfind("search_spaces/x.yaml:3: invalid YAML", 0) == 0);
  check_space_error("", "1", "the file is empty");
  check_space_error("# only a comment\n", "1", "the file is empty");
  check_space_error("- a\n- b\n", "1", "expected a mapping at the top level, got a list");
  check_space_error("just text\n", "1", "expected a mapping at the top level, got 'just text'");
}

TEST_CASE("a missing file is an error naming the path") {
  try {
    load_search_space("/nonexistent/space.yaml");
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    CHECK(message.find("/nonexistent/space.yaml") != std::string::npos);
    CHECK(message.find("cannot read search space file") != std::string::npos);
    CHECK(message.find("No such file or directory") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(load_search_space(std::filesystem::temp_directory_path().string()),
                       doctest::Contains("cannot read search space file: it is a directory"),
                       ConfigError);
}

// --- condition: (issue 27) ---------------------------------------------------

const char kModel[] = "params:\n  model: {type: categorical, choices: [tcn, mlp, gbm]}\n";

TEST_CASE("condition: one value, a list, and chains parse") {
  const SearchSpaceConfig space =
      parse(std::string(kModel) +
            "  kernel: {type: int, low: 2, high: 7, condition: {model: tcn}}\n"
            "  hidden: {type: int, low: 8, high: 128, condition: {model: [mlp, gbm]}}\n"
            "  act: {type: categorical, choices: [relu, 1], condition: {model: mlp}}\n"
            "  slope: {type: float, low: 0.0, high: 0.3, condition: {act: relu}}\n"
            "  lr: {type: float, low: 0.001, high: 0.1, log: true}\n");
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
  const SearchSpaceConfig space = parse(
      "params:\n  width: {type: categorical, choices: [64, 128]}\n"
      "  extra: {type: int, low: 1, high: 3, condition: {width: 64.0}}\n");
  CHECK(space.params[1].condition->values == std::vector<ParamValue>{64.0});
}

TEST_CASE("unknown parents, parents below, cycles and non-categorical parents are errors") {
  check_space_error(
      std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, condition: {modle: tcn}}\n",
      "3: params.kernel.condition", "unknown parent 'modle' (did you mean 'model'?)");
  check_space_error(
      "params:\n  kernel: {type: int, low: 2, high: 7, condition: {model: tcn}}\n"
      "  model: {type: categorical, choices: [tcn, mlp]}\n",
      "2: params.kernel.condition", "'model' is defined below 'kernel'");
  check_space_error(
      "params:\n"
      "  a: {type: categorical, choices: [x, y], condition: {b: x}}\n"
      "  b: {type: categorical, choices: [x, y], condition: {a: x}}\n",
      "2: params.a.condition", "condition cycle a -> b -> a");
  check_space_error("params:\n  a: {type: categorical, choices: [x, y], condition: {a: x}}\n",
                    "2: params.a.condition", "condition cycle a -> a");
  check_space_error(
      "params:\n  lr: {type: float, low: 0.1, high: 1}\n"
      "  k: {type: int, low: 2, high: 7, condition: {lr: 0.5}}\n",
      "3: params.k.condition",
      "'lr' is a float parameter; a condition's parent must be "
      "a categorical parameter defined above it");
  check_space_error(
      "params:\n  n: {type: int, low: 1, high: 2}\n"
      "  k: {type: int, low: 2, high: 7, condition: {n: 1}}\n",
      "3: params.k.condition", "'n' is an int parameter");
  check_space_error(
      "params:\n  model: tcn\n  k: {type: int, low: 2, high: 7, condition: {model: tcn}}\n",
      "3: params.k.condition", "'model' is a fixed value");
}

TEST_CASE("a condition that can never hold is an error naming the choices") {
  check_space_error(
      std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, condition: {model: tcnn}}\n",
      "3: params.kernel.condition.model",
      "'tcnn' is not a choice of 'model' (tcn, mlp, gbm) (did you mean 'tcn'?), so the "
      "condition could never hold");
  check_space_error(std::string(kModel) +
                        "  kernel: {type: int, low: 2, high: 7,\n"
                        "           condition: {model: [tcn, rnn]}}\n",
                    "4: params.kernel.condition.model[1]", "'rnn' is not a choice of 'model'");
  check_space_error(
      std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, condition: {model: []}}\n",
      "3: params.kernel.condition.model", "expected at least one of 'model''s choices");
}

TEST_CASE("a condition's shape, and conditions on fixed values, are errors") {
  check_space_error(
      std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, condition: tcn}\n",
      "3: params.kernel.condition", "expected one parent and its value or values");
  check_space_error(std::string(kModel) +
                        "  kernel: {type: int, low: 2, high: 7, condition: {model: tcn, x: 1}}\n",
                    "3: params.kernel.condition", "such as {model: tcn}");
  check_space_error(
      std::string(kModel) + "  kernel: {type: fixed, value: 3, condition: {model: tcn}}\n",
      "3: params.kernel.condition", "a fixed value goes to every trial");
  check_space_error(
      std::string(kModel) + "  kernel: {type: int, low: 2, high: 7, conditon: {model: tcn}}\n",
      "3: params.kernel", "did you mean 'condition'");
}

TEST_CASE("fixing a parent picks its branch: children settled, the other branch gone") {
  SearchSpaceConfig space =
      parse(std::string(kModel) +
            "  kernel: {type: int, low: 2, high: 7, condition: {model: tcn}, pinned: true}\n"
            "  hidden: {type: int, low: 8, high: 128, condition: {model: [mlp, gbm]}}\n"
            "  act: {type: categorical, choices: [relu, gelu], condition: {model: mlp}}\n"
            "  slope: {type: float, low: 0.0, high: 0.3, condition: {act: relu}}\n"
            "  lr: {type: float, low: 0.001, high: 0.1}\n");
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
  CHECK_FALSE(fix_choice(unchanged, "act", std::string("relu")));  // a conditional one
  CHECK(unchanged.params.size() == space.params.size());
}

}  // namespace
}  // namespace hpo
