#include "hpo/config/study_file.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hpo/config/config_error.h"
#include "hpo/config/search_space_file.h"
#include "tests/unit/temp_dir.h"

namespace hpo {
namespace {

namespace fs = std::filesystem;

// A scratch directory, removed with everything in it at the end of a test.

const char kSpace[] = R"(
params:
  lr: {type: float, low: 1.0e-4, high: 1.0e-1, log: true}
  batch_size: {type: categorical, choices: [32, 64]}
  model: {type: fixed, value: tcn}
  epochs: 3
)";

// The keys a study must have; tests append the rest.
const char kRequired[] = R"(search_space: space.yaml
objective: {metric: val_loss, direction: minimize}
trainer: {command: [train, "{config}"]}
)";

// A study at <dir>/studies/s.yaml beside <dir>/search_spaces/space.yaml.
struct Layout {
  TempDir dir{"hpo_study_test"};
  std::string study;
  explicit Layout(const std::string& study_text, const std::string& space_text = kSpace) {
    dir.write("search_spaces/space.yaml", space_text);
    study = dir.write("studies/s.yaml", study_text);
  }
};

std::string error_of(const std::string& study_text, const std::string& space_text = kSpace) {
  const Layout layout(study_text, space_text);
  try {
    load_study_file(layout.study);
  } catch (const ConfigError& e) {
    // Relative to the layout so that messages can be compared.
    std::string message = e.what();
    const std::string root = layout.dir.path("");
    for (size_t at; (at = message.find(root)) != std::string::npos;) message.erase(at, root.size());
    return message;
  }
  return "no error";
}

void check_error(const std::string& study_text, const std::string& start, const std::string& what) {
  const std::string message = error_of(study_text);
  INFO("message: " << message);
  CHECK(message.rfind(start, 0) == 0);
  CHECK(message.find(what) != std::string::npos);
}

TEST_CASE("a complete study file loads with its search space") {
  const Layout layout(R"(
name: my_study
description: A test study.
search_space: space.yaml
objective: {metric: val_rank_ic, direction: Maximize, record: [val_sharpe, val_loss]}
sampler: {name: tpe, seed: 7, n_startup_trials: 4, gamma: [0.1, "x"]}
n_trials: 12
n_jobs: 3
trainer:
  command: [hpo-trainer, --config, "{config}", --out, "{trial_dir}", --seed, 5]
  timeout: 90.5
  grace_period: 0
env:
  ZED: 1
  ALPHA: LAZY
  FLAG_ON: true
  FLAG_OFF: false
  RATE: 1.50
  DEVICE: "cuda:0"
fixed: {epochs: 5, extra: "x"}
storage: sqlite:///tmp/x.db
runs_dir: out/runs
)");
  const StudyConfig study = load_study_file(layout.study);
  CHECK(study.path == layout.study);
  CHECK(study.name == "my_study");
  CHECK(study.description == "A test study.");
  CHECK(study.objective.metric == "val_rank_ic");
  CHECK(study.objective.direction == Direction::kMaximize);
  CHECK(study.objective.record == std::vector<std::string>{"val_sharpe", "val_loss"});
  CHECK(study.sampler.name == "tpe");
  CHECK(study.sampler.seeded);
  CHECK(study.sampler.seed == 7);
  CHECK(study.sampler.options == nlohmann::json{{"n_startup_trials", 4}, {"gamma", {0.1, "x"}}});
  CHECK(study.n_trials == 12);
  CHECK(study.n_jobs == 3);
  const std::vector<std::string> command = {"hpo-trainer", "--config", "{config}", "--out",
                                            "{trial_dir}", "--seed",   "5"};
  CHECK(study.trainer.command == command);
  CHECK(study.trainer.timeout_s == 90.5);
  CHECK(study.trainer.grace_period_s == 0);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"ZED", "1"},      {"ALPHA", "LAZY"}, {"FLAG_ON", "1"},
      {"FLAG_OFF", "0"}, {"RATE", "1.50"},  {"DEVICE", "cuda:0"}};
  CHECK(study.env == env);  // file order, values as written
  // Relative to the study file, as the search space is.
  const std::string studies = std::filesystem::absolute(layout.study).parent_path().string();
  CHECK(study.storage == "sqlite:///" + studies + "/tmp/x.db");
  CHECK(study.runs_dir == studies + "/out/runs");
  CHECK(study.space.path == layout.dir.path("search_spaces/space.yaml"));
  REQUIRE(study.space.params.size() == 2);
  CHECK(study.space.params[0].name == "lr");
  CHECK(study.space.params[1].name == "batch_size");
  // The study overrides epochs in place and appends extra.
  const FixedValues fixed = {
      {"model", std::string("tcn")}, {"epochs", int64_t{5}}, {"extra", std::string("x")}};
  CHECK(study.space.fixed == fixed);
}

TEST_CASE("absolute paths and server URLs in a study file stay as written") {
  for (const std::string storage : {"sqlite:////abs/x.db", "postgresql://hpo@db1:5432/hpo"}) {
    const Layout layout(std::string(kRequired) + "storage: \"" + storage +
                        "\"\nruns_dir: /abs/runs\n");
    const StudyConfig study = load_study_file(layout.study);
    CHECK(study.storage == storage);
    CHECK(study.runs_dir == "/abs/runs");
  }
}

TEST_CASE("a minimal study gets the defaults and the file's stem as name") {
  const Layout layout(kRequired);
  const StudyConfig study = load_study_file(layout.study);
  const StudyConfig defaults;
  CHECK(study.name == "s");
  CHECK(study.objective.direction == Direction::kMinimize);
  CHECK(study.sampler.name == "auto");  // issue 21: a study without sampler: uses auto
  CHECK_FALSE(study.sampler.seeded);
  CHECK(study.sampler.options == nlohmann::json::object());
  CHECK(study.n_trials == defaults.n_trials);
  CHECK(study.n_jobs == defaults.n_jobs);
  CHECK(study.trainer.timeout_s == 0);
  CHECK(study.trainer.grace_period_s == defaults.trainer.grace_period_s);
  CHECK(study.env.empty());
  CHECK(study.storage == defaults.storage);
  CHECK(study.runs_dir == defaults.runs_dir);
  CHECK(study.space.fixed.size() == 2);  // the space's own, untouched
}

TEST_CASE("the search space is found next to the study first, then in ../search_spaces") {
  Layout layout(kRequired);
  CHECK(load_study_file(layout.study).space.path == layout.dir.path("search_spaces/space.yaml"));
  layout.dir.write("studies/space.yaml", "params:\n  only: {type: int, low: 0, high: 1}\n");
  const StudyConfig study = load_study_file(layout.study);
  CHECK(study.space.path == layout.dir.path("studies/space.yaml"));
  CHECK(study.space.params.at(0).name == "only");
}

TEST_CASE("a study file is never read as its own search space") {
  // studies/s.yaml says `search_space: s.yaml`: that is search_spaces/s.yaml.
  TempDir dir{"hpo_study_test"};
  const std::string rest = "objective: {metric: m, direction: minimize}\ntrainer: {command: [t]}\n";
  const std::string study = dir.write("studies/s.yaml", "search_space: s.yaml\n" + rest);
  dir.write("search_spaces/s.yaml", kSpace);
  CHECK(load_study_file(study).space.path == dir.path("search_spaces/s.yaml"));
  std::filesystem::remove(dir.path("search_spaces/s.yaml"));
  try {
    load_study_file(study);
    FAIL("loaded the study file as its search space");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("search space 's.yaml' not found") != std::string::npos);
  }
}

TEST_CASE("the search space may be named without .yaml, or by absolute path") {
  TempDir dir{"hpo_study_test"};
  const std::string space = dir.write("elsewhere/abs.yaml", kSpace);
  dir.write("search_spaces/space.yaml", kSpace);
  const std::string rest = "objective: {metric: m, direction: minimize}\ntrainer: {command: [t]}\n";
  const std::string by_stem = dir.write("studies/a.yaml", "search_space: space\n" + rest);
  CHECK(load_study_file(by_stem).space.path == dir.path("search_spaces/space.yaml"));
  const std::string by_abs = dir.write("studies/b.yaml", "search_space: " + space + "\n" + rest);
  CHECK(load_study_file(by_abs).space.path == space);
}

TEST_CASE("a missing search space lists the places looked at") {
  check_error(
      "search_space: nope.yaml\nobjective: {metric: m, direction: minimize}\n"
      "trainer: {command: [t]}\n",
      "studies/s.yaml:1: search_space: search space 'nope.yaml' not found; looked for "
      "studies/nope.yaml, search_spaces/nope.yaml",
      "");
  // The directory of spaces itself: said so, not "not found" over the same
  // path listed twice.
  check_error(
      "search_space: ../search_spaces\nobjective: {metric: m, direction: minimize}\n"
      "trainer: {command: [t]}\n",
      "studies/s.yaml:1: search_space: search space '../search_spaces' is a directory", "");
  CHECK(error_of("search_space: ../nope\nobjective: {metric: m, direction: minimize}\n"
                 "trainer: {command: [t]}\n") ==
        "studies/s.yaml:1: search_space: search space '../nope' not found; looked for nope, "
        "nope.yaml");
}

TEST_CASE("errors in the search space name the search space file") {
  const std::string message =
      error_of(kRequired, "params:\n  lr: {type: float, low: x, high: 1}\n");
  CHECK(message.rfind("search_spaces/space.yaml:2: params.lr.low: expected a number, got 'x'", 0) ==
        0);
}

TEST_CASE("a study cannot fix a parameter its space samples") {
  check_error(std::string(kRequired) + "fixed:\n  lr: 0.1\n", "studies/s.yaml:5: fixed.lr",
              "'lr' is sampled by the search space");
  check_error(std::string(kRequired) + "fixed: {x: [1]}\n", "studies/s.yaml:4: fixed.x",
              "expected a single value, got a list");
}

TEST_CASE("unknown keys anywhere in a study suggest the closest known key") {
  check_error(std::string(kRequired) + "n_trails: 5\n", "studies/s.yaml:4",
              "unknown key 'n_trails' (did you mean 'n_trials'?)");
  check_error(
      "search_space: space.yaml\nobjective: {metric: m, direction: minimize, recrod: [a]}\n"
      "trainer: {command: [t]}\n",
      "studies/s.yaml:2: objective", "unknown key 'recrod' (did you mean 'record'?)");
  check_error(
      "search_space: space.yaml\nobjective: {metric: m, direction: minimize}\n"
      "trainer: {command: [t], timout: 5}\n",
      "studies/s.yaml:3: trainer", "unknown key 'timout' (did you mean 'timeout'?)");
  check_error(std::string(kRequired) + "n_trials: 1\nn_trials: 2\n", "studies/s.yaml:5: n_trials",
              "given twice (first at line 4)");
  // The keys a sampler or pruner holds itself, misspelled: not taken for one
  // of the (default) sampler's options.
  check_error(std::string(kRequired) + "sampler: {nme: tpe}\n", "studies/s.yaml:4: sampler",
              "unknown sampler key 'nme' (did you mean 'name'?)");
  check_error(std::string(kRequired) + "sampler: {name: tpe, sed: 1}\n",
              "studies/s.yaml:4: sampler", "unknown sampler key 'sed' (did you mean 'seed'?)");
  check_error(std::string(kRequired) + "pruner: {nam: median}\n", "studies/s.yaml:4: pruner",
              "unknown pruner key 'nam' (did you mean 'name'?)");
}

TEST_CASE("missing required study keys") {
  check_error("objective: {metric: m, direction: minimize}\ntrainer: {command: [t]}\n",
              "studies/s.yaml:1", "missing required key 'search_space'");
  check_error("search_space: space.yaml\ntrainer: {command: [t]}\n", "studies/s.yaml:1",
              "missing required key 'objective'");
  check_error(
      "search_space: space.yaml\nobjective: {direction: minimize}\ntrainer: {command: [t]}\n",
      "studies/s.yaml:2: objective", "missing required key 'metric'");
  check_error("search_space: space.yaml\nobjective: {metric: m}\ntrainer: {command: [t]}\n",
              "studies/s.yaml:2: objective", "missing required key 'direction'");
  check_error("search_space: space.yaml\nobjective: {metric: m, direction: minimize}\n",
              "studies/s.yaml:1", "missing required key 'trainer'");
  check_error(
      "search_space: space.yaml\nobjective: {metric: m, direction: minimize}\ntrainer: {}\n",
      "studies/s.yaml:3: trainer", "missing required key 'command'");
}

TEST_CASE("objective and sampler values are checked") {
  check_error(
      "search_space: space.yaml\nobjective: {metric: m, direction: up}\ntrainer: {command: [t]}\n",
      "studies/s.yaml:2: objective.direction", "expected maximize or minimize, got 'up'");
  check_error(std::string(kRequired) + "sampler: {name: tpee}\n", "studies/s.yaml:4: sampler.name",
              "unknown sampler 'tpee' (did you mean 'tpe'?); known: auto, random, tpe");
  check_error(std::string(kRequired) + "sampler: {name: grid}\n", "studies/s.yaml:4: sampler.name",
              "unknown sampler 'grid'; known: auto, random, tpe");
  check_error(std::string(kRequired) + "sampler: random\n", "studies/s.yaml:4: sampler",
              "expected a mapping, got 'random'");
  check_error(std::string(kRequired) + "sampler: {seed: -1}\n", "studies/s.yaml:4: sampler.seed",
              "expected an integer >= 0, got '-1'");
  check_error(std::string(kRequired) + "sampler: {seed: 1.5}\n", "studies/s.yaml:4: sampler.seed",
              "expected an integer, got '1.5'");
}

TEST_CASE("counts and durations are checked") {
  check_error(std::string(kRequired) + "n_trials: 0\n", "studies/s.yaml:4: n_trials",
              "expected an integer >= 1, got '0'");
  check_error(std::string(kRequired) + "n_trials: 2.5\n", "studies/s.yaml:4: n_trials",
              "expected an integer, got '2.5'");
  check_error(std::string(kRequired) + "n_trials: 3000000000\n", "studies/s.yaml:4: n_trials",
              "expected an integer >= 1, got '3000000000'");
  check_error(std::string(kRequired) + "n_jobs: 99999999999999999999\n", "studies/s.yaml:4: n_jobs",
              "out of range");
  check_error(std::string(kRequired) + "n_jobs: -2\n", "studies/s.yaml:4: n_jobs",
              "expected an integer >= 1");
  check_error(
      "search_space: space.yaml\nobjective: {metric: m, direction: minimize}\n"
      "trainer: {command: [t], timeout: -1}\n",
      "studies/s.yaml:3: trainer.timeout",
      "expected a number of seconds from 0 to 1e8 (about 3 years), got '-1'");
  check_error(
      "search_space: space.yaml\nobjective: {metric: m, direction: minimize}\n"
      "trainer: {command: [t], grace_period: soon}\n",
      "studies/s.yaml:3: trainer.grace_period", "expected a number, got 'soon'");
  check_error(
      "search_space: space.yaml\nobjective: {metric: m, direction: minimize}\n"
      "trainer: {command: [t], timeout: .nan}\n",
      "studies/s.yaml:3: trainer.timeout", "expected a number of seconds from 0");
  // Past int64 nanoseconds (about 9.2e9 s) every trial failed at once as timed out.
  check_error(
      "search_space: space.yaml\nobjective: {metric: m, direction: minimize}\n"
      "trainer: {command: [t], timeout: 1e10}\n",
      "studies/s.yaml:3: trainer.timeout", "from 0 to 1e8");
  // A slot is a thread: 100,000 aborted in pthread_create.
  check_error(std::string(kRequired) + "n_jobs: 100000\n", "studies/s.yaml:4: n_jobs",
              "expected at most 1024 trials at once on one host");
  // A heartbeat of 1e-6 s cut off every trial as it started, for ever.
  for (const char* beat : {"1e-6", "0", "1e18"})
    check_error(std::string(kRequired) + "heartbeat_interval: " + beat + "\n",
                "studies/s.yaml:4: heartbeat_interval", "expected a number of seconds from 0.5");
  check_error(std::string(kRequired) + "storage: [a]\n", "studies/s.yaml:4: storage",
              "expected a string, got a list");
  check_error(std::string(kRequired) + "runs_dir: ''\n", "studies/s.yaml:4: runs_dir",
              "expected a non-empty string");
}

TEST_CASE("the trainer command is checked when the study is loaded") {
  const std::string head =
      "search_space: space.yaml\nobjective: {metric: m, direction: minimize}\n";
  check_error(head + "trainer: {command: []}\n", "studies/s.yaml:3: trainer.command",
              "expected the program and its arguments, got an empty list");
  check_error(head + "trainer: {command: ['', x]}\n", "studies/s.yaml:3: trainer.command[0]",
              "the program name is empty");
  check_error(head + "trainer:\n  command: train --config x\n", "studies/s.yaml:4: trainer.command",
              "expected a list, got 'train --config x'");
  check_error(head + "trainer:\n  command:\n    - train\n    - --out={trail_dir}\n",
              "studies/s.yaml:6: trainer.command[1]",
              "unknown placeholder '{trail_dir}' (did you mean 'trial_dir'?)");
  check_error(head + "trainer:\n  command: [train, '{config']\n",
              "studies/s.yaml:4: trainer.command[1]", "'{' without '}'");
  check_error(head + "trainer:\n  command: [train, true]\n", "studies/s.yaml:4: trainer.command[1]",
              "expected a string, got 'true'");
}

TEST_CASE("env names and values are checked") {
  check_error(std::string(kRequired) + "env:\n  1BAD: x\n", "studies/s.yaml:5: env.1BAD",
              "not a valid environment variable name");
  check_error(std::string(kRequired) + "env:\n  A-B: x\n", "studies/s.yaml:5: env.A-B",
              "not a valid environment variable name");
  check_error(std::string(kRequired) + "env:\n  A: [1, 2]\n", "studies/s.yaml:5: env.A",
              "expected a single value, got a list");
  check_error(std::string(kRequired) + "env:\n  A:\n", "studies/s.yaml:5: env.A",
              "expected a single value, got nothing");
  check_error(std::string(kRequired) + "env: [A]\n", "studies/s.yaml:4: env",
              "expected a mapping, got a list");
  // hpo counts the loader workers when it splits the cores, so they must be a count.
  check_error(std::string(kRequired) + "env:\n  NUM_WORKERS: many\n",
              "studies/s.yaml:5: env.NUM_WORKERS",
              "expected a number of data-loader workers (an integer from 0 to 1024), got 'many'");
  check_error(std::string(kRequired) + "env:\n  NUM_WORKERS: -2\n",
              "studies/s.yaml:5: env.NUM_WORKERS", "expected a number of data-loader workers");
}

TEST_CASE("env_fixed pins env settings hpo would fit, and only those") {
  const Layout layout(std::string(kRequired) +
                      "env: {NUM_WORKERS: 3, OMP_NUM_THREADS: 2}\nenv_fixed: [NUM_WORKERS]\n");
  CHECK(load_study_file(layout.study).env_fixed == std::vector<std::string>{"NUM_WORKERS"});
  const std::string env = std::string(kRequired) + "env: {NUM_WORKERS: 3, OMP_NUM_THREADS: x}\n";
  check_error(env + "env_fixed: [PIN_MEMORY]\n", "studies/s.yaml:5: env_fixed[0]",
              "'PIN_MEMORY' is not a setting hpo fits; expected NUM_WORKERS or OMP_NUM_THREADS");
  check_error(env + "env_fixed: [NUM_WORKER]\n", "studies/s.yaml:5: env_fixed[0]",
              "(did you mean 'NUM_WORKERS'?)");
  check_error(env + "env_fixed: [NUM_WORKERS, NUM_WORKERS]\n", "studies/s.yaml:5: env_fixed[1]",
              "NUM_WORKERS is listed twice");
  check_error(env + "env_fixed: [OMP_NUM_THREADS]\n", "studies/s.yaml:5: env_fixed[0]",
              "a pinned OMP_NUM_THREADS must be a thread count (an integer from 1 to 1024), but "
              "env says 'x'");
  check_error(std::string(kRequired) + "env_fixed: [NUM_WORKERS]\n",
              "studies/s.yaml:4: env_fixed[0]",
              "NUM_WORKERS is pinned but not set in env: give its value there");
  check_error(env + "env_fixed: NUM_WORKERS\n", "studies/s.yaml:5: env_fixed",
              "expected a list, got 'NUM_WORKERS'");
}

TEST_CASE("study names must be safe for paths and the database") {
  check_error(std::string(kRequired) + "name: ../escape\n", "studies/s.yaml:4: name",
              "invalid study name '../escape'");
  TempDir dir{"hpo_study_test"};
  dir.write("search_spaces/space.yaml", kSpace);
  const std::string hidden = dir.write("studies/.hidden.yaml", kRequired);
  CHECK_THROWS_WITH_AS(load_study_file(hidden), doctest::Contains("invalid study name '.hidden'"),
                       ConfigError);
  // A name other than the file's stem is allowed.
  const std::string other =
      dir.write("studies/file.yaml", std::string(kRequired) + "name: other.v2\n");
  CHECK(load_study_file(other).name == "other.v2");
  for (const char* bad : {"", ".x", "a b", "a/b", "x;y", "é"}) {
    CHECK_THROWS_AS(validate_study_name(bad), ConfigError);
  }
  for (const char* good : {"a", "quick_sweep", "v1.2-rc_3", "A.B"})
    CHECK_NOTHROW(validate_study_name(good));
}

TEST_CASE("missing, empty and malformed study files") {
  CHECK_THROWS_WITH_AS(load_study_file("/nonexistent/s.yaml"),
                       doctest::Contains("/nonexistent/s.yaml: cannot read study file"),
                       ConfigError);
  check_error("", "studies/s.yaml:1", "the file is empty");
  check_error("name: [x\n", "studies/s.yaml:", "invalid YAML");
  // Text that is not UTF-8 is named as such, at its line, not quoted as
  // what yaml-cpp makes of it (a UTF-16 file read as CJK characters).
  check_error(std::string("\xFF\xFEn\0a\0", 6), "studies/s.yaml:1",
              "not UTF-8 text (byte 0xFF, a UTF-16 file); save the file as UTF-8");
  check_error(std::string(kRequired) + "description: caf\xE9\n", "studies/s.yaml:4",
              "not UTF-8 text (byte 0xE9)");
  check_error(std::string(kRequired) + "description: \xED\xA0\x80\n", "studies/s.yaml:4",
              "not UTF-8 text (byte 0xED)");  // a surrogate
  check_error(std::string(kRequired) + std::string("n_trials: 1\0\n", 13), "studies/s.yaml:4",
              "(byte 0x00)");
  // Well-formed UTF-8, a byte-order mark included, is read.
  const Layout layout("\xEF\xBB\xBF" + std::string(kRequired) +
                      "description: caf\xC3\xA9 \xF0\x9F\x93\x88\n");
  CHECK(load_study_file(layout.study).description == "caf\xC3\xA9 \xF0\x9F\x93\x88");
}

TEST_CASE("find_study_file finds studies by name or path") {
  TempDir dir{"hpo_study_test"};
  const std::string first = dir.write("one/alpha.yaml", "x");
  const std::string second = dir.write("two/alpha.yaml", "x");
  const std::string beta = dir.write("two/beta.yaml", "x");
  dir.write("two/notes.txt", "x");
  dir.write("two/.hidden.yaml", "x");
  const std::vector<std::string> dirs = {dir.path("one"), dir.path("missing"), dir.path("two")};
  CHECK(find_study_file("alpha", dirs) == first);  // the first directory wins
  CHECK(find_study_file("beta", dirs) == beta);
  CHECK(find_study_file(second, dirs) == second);  // an existing path as given
  CHECK_THROWS_WITH_AS(
      find_study_file(dir.path("two/gamma.yaml"), dirs),
      doctest::Contains(("study file '" + dir.path("two/gamma.yaml") + "' not found").c_str()),
      ConfigError);
  // A directory given as the study: said so, not "not found".
  CHECK_THROWS_WITH_AS(find_study_file(dir.path("two") + "/", dirs),
                       doctest::Contains("' is a directory; give a study file in it"), ConfigError);
}

TEST_CASE("find_study_file lists what is available when a name is not found") {
  TempDir dir{"hpo_study_test"};
  dir.write("two/zeta.yaml", "x");
  dir.write("one/beta.yaml", "x");
  dir.write("two/alpha.yaml", "x");
  dir.write("two/notes.txt", "x");
  dir.write("two/.hidden.yaml", "x");
  const std::vector<std::string> dirs = {dir.path("one"), dir.path("two")};
  try {
    find_study_file("alhpa", dirs);
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    CHECK(message.find("no study named 'alhpa' (did you mean 'alpha'?)") != std::string::npos);
    CHECK(message.find("searched " + dirs[0] + ", " + dirs[1]) != std::string::npos);
    CHECK(message.find("available: alpha, beta, zeta") != std::string::npos);  // sorted
  }
  CHECK_THROWS_WITH_AS(find_study_file("x", {}),
                       doctest::Contains("searched no directories; available: none"), ConfigError);
}

TEST_CASE("find_study_file rejects names unsafe for paths") {
  TempDir dir{"hpo_study_test"};
  dir.write("studies/ok.yaml", "x");
  const std::vector<std::string> dirs = {dir.path("studies")};
  CHECK_THROWS_WITH_AS(find_study_file(".ok", dirs), doctest::Contains("invalid study name"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(find_study_file("a b", dirs), doctest::Contains("invalid study name"),
                       ConfigError);
  CHECK_THROWS_AS(find_study_file("../studies/ok", dirs), ConfigError);  // not a file, not a name
}

// The files hpo ships: every one must load, and the sweeps must match the
// workflow they come from.
const fs::path kSourceDir = fs::path(HPO_SOURCE_DIR);

TEST_CASE("every shipped search space loads") {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kSourceDir / "search_spaces")) {
    INFO(entry.path().string());
    CHECK_NOTHROW(load_search_space(entry.path().string()));
    ++count;
  }
  CHECK(count >= 1);
}

TEST_CASE("every shipped study loads and can be found by name") {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kSourceDir / "studies")) {
    INFO(entry.path().string());
    const StudyConfig study = load_study_file(entry.path().string());
    CHECK(find_study_file(study.name, {(kSourceDir / "studies").string()}) ==
          entry.path().string());
    ++count;
  }
  CHECK(count >= 3);
}

TEST_CASE("the shipped sweeps: quick 5x5, medium 10x10, full 20x20") {
  const std::vector<std::pair<std::string, int64_t>> sweeps = {
      {"quick_sweep", 5}, {"medium_sweep", 10}, {"full_sweep", 20}};
  for (const auto& [name, size] : sweeps) {
    INFO(name);
    const StudyConfig study = load_study_file((kSourceDir / "studies" / (name + ".yaml")).string());
    CHECK(study.name == name);
    CHECK(study.n_trials == size);
    const auto epochs = std::find_if(study.space.fixed.begin(), study.space.fixed.end(),
                                     [](const auto& entry) { return entry.first == "epochs"; });
    REQUIRE(epochs != study.space.fixed.end());
    CHECK(std::get<int64_t>(epochs->second) == size);
    CHECK(study.objective.direction == Direction::kMaximize);
    const std::vector<std::string> command = {"hpo-trainer", "--config", "{config}", "--out",
                                              "{trial_dir}"};
    CHECK(study.trainer.command == command);
    std::vector<std::string> names;
    for (const ParamSpec& param : study.space.params) names.push_back(param.name);
    CHECK(names == std::vector<std::string>{"batch_size", "hidden_size", "grad_accum", "lr",
                                            "model", "kernel_size"});
    CHECK(std::get<FloatDistribution>(study.space.params[3].distribution) ==
          FloatDistribution{5e-6, 5e-3, true, std::nullopt});
    // The TCN's kernel width only for the TCN.
    REQUIRE(study.space.params[5].condition);
    CHECK(study.space.params[5].condition->parent == "model");
    CHECK(study.space.params[5].condition->values == std::vector<ParamValue>{std::string("tcn")});
  }
  // walk_forward_quick fixes the model: the MLP branch, without kernel_size.
  const StudyConfig mlp =
      load_study_file((kSourceDir / "studies" / "walk_forward_quick.yaml").string());
  std::vector<std::string> names;
  for (const ParamSpec& param : mlp.space.params) names.push_back(param.name);
  CHECK(names == std::vector<std::string>{"batch_size", "hidden_size", "grad_accum", "lr"});
}

// The keys of a multi-objective study; tests append the rest.
const char kTwoGoals[] = R"(search_space: space.yaml
trainer: {command: [train, "{config}"]}
objectives:
  - {metric: val_rank_ic, direction: maximize}
  - {metric: val_turnover, direction: minimize}
)";

TEST_CASE("objectives: lists two or three, in order, with constraints") {
  const Layout layout(std::string(kTwoGoals) +
                      "constraints:\n  - {metric: val_turnover, max: 0.4}\n"
                      "  - {metric: val_sharpe, min: 0, max: 3}\n");
  const StudyConfig study = load_study_file(layout.study);
  REQUIRE(study.objectives.size() == 2);
  CHECK(study.objectives[0].metric == "val_rank_ic");
  CHECK(study.objectives[0].direction == Direction::kMaximize);
  CHECK(study.objectives[1].metric == "val_turnover");
  CHECK(study.objectives[1].direction == Direction::kMinimize);
  CHECK(study.objective.metric == "val_rank_ic");  // objective 0, for pruning and messages
  REQUIRE(study.constraints.size() == 2);
  CHECK(study.constraints[0].metric == "val_turnover");
  CHECK(!study.constraints[0].min);
  CHECK(*study.constraints[0].max == 0.4);
  CHECK(*study.constraints[1].min == 0);
  CHECK(*study.constraints[1].max == 3);
}

TEST_CASE("a single objective: is one objective of the list") {
  const Layout layout(kRequired);
  const StudyConfig study = load_study_file(layout.study);
  REQUIRE(study.objectives.size() == 1);
  CHECK(study.objectives[0].metric == "val_loss");
  CHECK(study.constraints.empty());
}

TEST_CASE("bad objectives and constraints name the file, the key and what was expected") {
  check_error(std::string(kTwoGoals) + "objective: {metric: x, direction: maximize}\n",
              "studies/s.yaml:", "objectives: give either 'objective:' (one) or 'objectives:'");
  check_error(R"(search_space: space.yaml
trainer: {command: [train]}
objectives: [{metric: a, direction: maximize}]
)",
              "studies/s.yaml:", "objectives: expected a list of two or three objectives");
  check_error(R"(search_space: space.yaml
trainer: {command: [train]}
objectives: [{metric: a, direction: maximize}, {metric: b}]
)",
              "studies/s.yaml:", "objectives[1]: missing required key 'direction'");
  check_error(R"(search_space: space.yaml
trainer: {command: [train]}
objectives: [{metric: a, direction: maximize}, {metric: a, direction: minimize}]
)",
              "studies/s.yaml:", "objectives[1]: 'a' is an objective twice");
  check_error(std::string(kTwoGoals) + "constraints: [{metric: val_turnover}]\n",
              "studies/s.yaml:", "constraints[0]: expected 'min:', 'max:' or both");
  check_error(std::string(kTwoGoals) + "constraints: [{metric: t, min: 2, max: 1}]\n",
              "studies/s.yaml:", "constraints[0]: min 2 is above max 1");
  check_error(std::string(kTwoGoals) + "constraints: [{metric: t, max: .nan}]\n",
              "studies/s.yaml:", "constraints[0].max: expected a finite number");
}

TEST_CASE("pruning with several objectives is refused, as Optuna refuses it") {
  check_error(std::string(kTwoGoals) + "pruner: {name: median}\n",
              "studies/s.yaml:", "pruner: pruning needs a single objective; this study has 2");
  const Layout layout(std::string(kTwoGoals) + "pruner: {name: none}\n");
  CHECK(load_study_file(layout.study).pruner.name == "none");
}

TEST_CASE("warm_start: study names, NAME@URL beside the study file, and errors") {
  const Layout layout(std::string(kRequired) +
                      "name: m\nwarm_start: {studies: [q, old@sqlite:///../a.db, "
                      "pg@postgresql://u:p@h/db]}\n");
  const StudyConfig config = load_study_file(layout.study);
  REQUIRE(config.warm_start.size() == 3);
  CHECK(config.warm_start[0].study == "q");
  CHECK(config.warm_start[0].storage.empty());
  CHECK(config.warm_start[1].study == "old");
  CHECK(config.warm_start[1].storage == "sqlite:///" + layout.dir.path("a.db"));
  CHECK(config.warm_start[2].study == "pg");
  CHECK(config.warm_start[2].storage == "postgresql://u:p@h/db");
  check_error(std::string(kRequired) + "warm_start: {studies: [q]}\nname: q\n",
              "studies/s.yaml:", "cannot warm-start from itself");
  check_error(std::string(kRequired) + "warm_start: {studies: [\"bad name\"]}\n",
              "studies/s.yaml:", "warm_start.studies[0]: expected a study name or NAME@URL");
  check_error(std::string(kRequired) + "warm_start: {studies: [q@]}\n",
              "studies/s.yaml:", "no URL");
  check_error(std::string(kRequired) + "warm_start: {study: [q]}\n", "studies/s.yaml:", "study");
}

}  // namespace
}  // namespace hpo
