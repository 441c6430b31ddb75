#include "hpo/run/sampler_factory.h"

#include <doctest/doctest.h>

#include "hpo/config/config_error.h"
#include "samplers/auto_sampler.h"
#include "samplers/conditions.h"
#include "samplers/random_sampler.h"
#include "samplers/sampler_names.h"
#include "samplers/startup.h"
#include "tests/unit/tpe_test_space.h"

namespace hpo {
namespace {

std::string error_of(const SamplerConfig& config) {
  try {
    make_sampler(config, 1, Direction::kMaximize, "studies/s.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("the factory builds the random sampler with its seed") {
  SamplerConfig config;
  config.name = "random";
  auto a = make_sampler(config, 5, Direction::kMaximize, "s.yaml");
  auto b = make_sampler(config, 5, Direction::kMaximize, "s.yaml");
  CHECK(a->name() == "random");
  const SearchSpace space = {{"x", FloatDistribution{0, 1, false, std::nullopt}}};
  CHECK(a->ask(space, 3) == b->ask(space, 3));
}

TEST_CASE("each sampler name a study file accepts builds its sampler") {
  for (const auto& name : sampler_names()) {
    SamplerConfig config;
    config.name = name;
    CHECK(make_sampler(config, 1, Direction::kMaximize, "s.yaml")->name() == name);
  }
}

TEST_CASE("unknown samplers and options name the study file and the key") {
  SamplerConfig config;
  config.name = "grid";
  const auto unknown = error_of(config);
  CHECK(unknown.find("studies/s.yaml") != std::string::npos);
  CHECK(unknown.find("unknown sampler 'grid'") != std::string::npos);
  CHECK(unknown.find("random") != std::string::npos);

  config.name = "random";
  config.options = {{"n_startup_trials", 3}};
  const auto option = error_of(config);
  CHECK(option.find("studies/s.yaml: sampler") != std::string::npos);
  CHECK(option.find("n_startup_trials") != std::string::npos);
}

TEST_CASE("the gp sampler reads its options and names a bad one") {
  SamplerConfig config;
  config.name = "gp";
  config.options = {{"n_startup_trials", 4}, {"deterministic", true}};
  const auto sampler = make_sampler(config, 1, Direction::kMinimize, "s.yaml");
  CHECK(sampler->name() == "gp");
  CHECK(sampler->startup_trials() == 4);

  config.options = {{"n_startup_trial", 4}};
  const auto unknown = error_of(config);
  CHECK(unknown.find("unknown gp option 'n_startup_trial'") != std::string::npos);
  CHECK(unknown.find("did you mean 'n_startup_trials'") != std::string::npos);

  config.options = {{"deterministic", "yes"}};
  CHECK(error_of(config) ==
        "studies/s.yaml: sampler.deterministic: expected true or false, got \"yes\"");
  config.options = {{"n_startup_trials", -1}};
  CHECK(error_of(config).find("expected an integer of at least 0, got -1") != std::string::npos);
}

}  // namespace
}  // namespace hpo

namespace hpo {
namespace {

TEST_CASE("the startup count follows the run's budget unless the study file sets it") {
  const SearchSpace space = {{"x", FloatDistribution{0, 1, false, std::nullopt}},
                             {"y", FloatDistribution{0, 1, false, std::nullopt}},
                             {"z", IntDistribution{1, 9, false, 1}}};
  const SamplerContext twenty{20, space};
  for (const std::string name : {"auto", "tpe", "gp"}) {
    SamplerConfig config;
    config.name = name;
    CAPTURE(name);
    CHECK(make_sampler(config, 1, Direction::kMinimize, "s.yaml", twenty)->startup_trials() ==
          auto_startup_trials(20, 3));
    CHECK(make_sampler(config, 1, Direction::kMinimize, "s.yaml")->startup_trials() == 10);
    config.options = {{"n_startup_trials", 7}};
    CHECK(make_sampler(config, 1, Direction::kMinimize, "s.yaml", twenty)->startup_trials() == 7);
  }
  SamplerConfig optuna;
  optuna.name = "tpe";
  optuna.options = {{"preset", "optuna"}};
  CHECK(make_sampler(optuna, 1, Direction::kMinimize, "s.yaml", twenty)->startup_trials() == 10);
}

TEST_CASE("a small study of a mostly conditional space draws each branch at random first") {
  // Three branches: after 2 or 3 startup trials TPE would model a branch
  // from one point (startup.h); a 10-trial study is random search instead.
  const Condition when_net{"model", {ParamValue{std::string("net")}}};
  const Condition when_tree{"model", {ParamValue{std::string("tree")}}};
  const SearchSpace space = {
      {"model", choices({std::string("linear"), std::string("tree"), std::string("net")})},
      {"width", IntDistribution{8, 512, true, 1}, when_net},
      {"layers", IntDistribution{1, 6, false, 1}, when_net},
      {"depth", IntDistribution{1, 16, false, 1}, when_tree}};
  SamplerConfig config;
  config.name = "auto";
  auto sampler = make_sampler(config, 4, Direction::kMinimize, "s.yaml", SamplerContext{10, space});
  RandomSampler random(4, Direction::kMinimize);
  for (int n = 0; n < 10; ++n) {
    const ParamValues v = sampler->ask(space, n);
    CHECK(v == random.ask(space, n));
    tell_complete(*sampler, n, v, v.at("model"));
  }
  CHECK(auto_startup_trials(5, space) == 5);  // never more than the budget
  CHECK(auto_startup_trials(100, space) == 10);
}

TEST_CASE("auto takes only the startup keys and says what it uses") {
  SamplerConfig config;
  config.name = "auto";
  config.options = {{"startup", "random"}};
  CHECK(make_sampler(config, 1, Direction::kMinimize, "s.yaml")->name() == "auto");
  config.options = {{"gamma", 0.2}};
  CHECK(error_of(config).find("unknown auto option 'gamma'") != std::string::npos);
  // The list names the keys every sampler takes, and a near miss is named.
  config.options = {{"n_startup_trial", 3}};
  CHECK(error_of(config).find("(did you mean 'n_startup_trials'?) (known: name, seed, "
                              "n_startup_trials, startup)") != std::string::npos);
  const SearchSpace space = {{"x", FloatDistribution{0, 1, false, std::nullopt}}};
  const auto choice = sampler_choice(config, SamplerContext{0, space});
  CHECK(choice["name"] == "auto");
  CHECK(choice["uses"].get<std::string>().rfind("gp", 0) == 0);
}

TEST_CASE("a study with constraints: auto uses TPE throughout, and gp is refused") {
  SamplerConfig config;
  config.name = "auto";
  const SearchSpace space = {{"x", FloatDistribution{0, 1, false, std::nullopt}}};
  const SamplerContext constrained{0, space, true};
  const auto choice = sampler_choice(config, constrained);
  CHECK(choice["uses"] == "tpe");
  CHECK(choice["why"].get<std::string>().find("constraints") != std::string::npos);
  // The sampler itself asks TPE from the first trial past the startup on.
  CHECK(make_sampler(config, 1, Direction::kMinimize, "s.yaml", constrained)->name() == "auto");
  CHECK(auto_plan(space, AutoThresholds{50, 20, 0.5, true}).gp_before == 0);
  CHECK(auto_plan(space).gp_before == 50);
  config.name = "gp";
  CHECK_THROWS_WITH_AS(make_sampler(config, 1, Direction::kMinimize, "s.yaml", constrained),
                       doctest::Contains("does not model constraints"), ConfigError);
  CHECK(make_sampler(config, 1, Direction::kMinimize, "s.yaml", SamplerContext{0, space})->name() ==
        "gp");
}

}  // namespace
}  // namespace hpo
