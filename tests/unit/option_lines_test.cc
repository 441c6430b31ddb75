// A sampler's or pruner's bad option is found by its factory, long after the
// YAML is gone: the error still names the line the key was written on.
#include "hpo/config/option_lines.h"

#include <doctest/doctest.h>

#include <string>

#include "hpo/config/config_error.h"
#include "hpo/config/study_file.h"
#include "hpo/run/mo_sampler_factory.h"
#include "hpo/run/pruner_factory.h"
#include "hpo/run/sampler_factory.h"
#include "tests/unit/temp_dir.h"

namespace hpo {
namespace {

// Loads a study whose line 2 is `objective` and lines 4 on are `tail`, builds
// its sampler and pruner, and returns the first error, without the directory.
std::string option_error_of(
    const std::string& tail,
    const std::string& objective = "objective: {metric: m, direction: minimize}\n") {
  TempDir dir("hpo_option_lines_test");
  dir.write("search_spaces/space.yaml", "params:\n  x: {type: float, low: 0, high: 1}\n");
  const std::string path = dir.write("studies/s.yaml", "search_space: space.yaml\n" + objective +
                                                           "trainer: {command: [t]}\n" + tail);
  std::string message = "no error";
  try {
    const StudyConfig study = load_study_file(path);
    if (study.objectives.size() > 1)
      make_multi_objective_sampler(study.sampler, 1, {Direction::kMinimize, Direction::kMinimize},
                                   study.path);
    else
      make_sampler(study.sampler, 1, Direction::kMinimize, study.path);
    make_pruner(study.pruner, study.path);
  } catch (const ConfigError& e) {
    message = e.what();
  }
  const std::string root = dir.path("");
  for (size_t at; (at = message.find(root)) != std::string::npos;) message.erase(at, root.size());
  return message;
}

TEST_CASE("option errors found by the factories name the key's line") {
  CHECK(option_error_of("sampler:\n  name: tpe\n  seed: 3\n  n_startup_trials: -3\n")
            .rfind("studies/s.yaml:7: sampler.n_startup_trials: expected", 0) == 0);
  CHECK(option_error_of("sampler:\n  name: tpe\n\n  gama: 0.2\n")
            .rfind("studies/s.yaml:7: sampler: unknown tpe option 'gama' (did you mean 'gamma'?",
                   0) == 0);
  CHECK(option_error_of("sampler:\n  name: random\n  n_startup_trials: 2\n")
            .rfind("studies/s.yaml:6: sampler: the random sampler takes no options", 0) == 0);
  CHECK(option_error_of("sampler:\n  name: auto\n  gamma: 0.2\n")
            .rfind("studies/s.yaml:6: sampler: unknown auto option 'gamma'", 0) == 0);
  CHECK(option_error_of("sampler: {name: gp, n_startup_trials: x}\n")
            .rfind("studies/s.yaml:4: sampler.n_startup_trials: expected", 0) == 0);
  CHECK(option_error_of("pruner:\n  name: median\n  n_warmup_steps: -2\n")
            .rfind("studies/s.yaml:6: pruner.n_warmup_steps: expected an integer >= 0, got -2",
                   0) == 0);
  CHECK(option_error_of("pruner:\n  name: hyperband\n  min_resource: 3\n  max_resource: 2\n")
            .rfind("studies/s.yaml:7: pruner.max_resource: expected an integer >= min_resource",
                   0) == 0);
  CHECK(option_error_of("pruner:\n  name: successive_halving\n  bootstrap_count: 2\n")
            .rfind("studies/s.yaml:6: pruner.bootstrap_count: needs an integer min_resource", 0) ==
        0);
  CHECK(option_error_of("pruner:\n  name: median\n  warmup: 2\n")
            .rfind("studies/s.yaml:6: pruner.warmup: unknown option", 0) == 0);
  CHECK(option_error_of("sampler:\n  name: nsga2\n  population_size: 0\n",
                        "objectives: [{metric: a, direction: minimize}, {metric: b, direction: "
                        "minimize}]\n")
            .rfind("studies/s.yaml:6: sampler.population_size: expected", 0) == 0);
  CHECK(option_error_of("sampler: {name: auto, gamma: 0.2}\n",
                        "objectives: [{metric: a, direction: minimize}, {metric: b, direction: "
                        "minimize}]\n")
            .rfind("studies/s.yaml:4: sampler: the auto sampler takes no options", 0) == 0);
}

TEST_CASE("an option without a line of its own points at the mapping's name, else the file") {
  OptionLines lines;
  CHECK(lines.where("s.yaml", "gamma") == "s.yaml");
  lines.lines["name"] = 4;
  CHECK(lines.where("s.yaml", "gamma") == "s.yaml:4");
  lines.lines["gamma"] = 6;
  CHECK(lines.where("s.yaml", "gamma") == "s.yaml:6");
  lines.lines["gamma"] = 0;  // yaml-cpp knew no line
  CHECK(lines.where("s.yaml", "gamma") == "s.yaml:4");
}

}  // namespace
}  // namespace hpo
