#include "samplers/tpe_option_table.h"

#include <doctest/doctest.h>

#include <cmath>

#include "hpo/run/sampler_factory.h"
#include "samplers/tpe_sampler.h"
#include "tests/unit/tpe_test_space.h"

namespace hpo {
namespace {

std::unique_ptr<Sampler> tpe(const nlohmann::json& options) {
  SamplerConfig config;
  config.name = "tpe";
  config.options = options;
  return make_sampler(config, 8, Direction::kMinimize, "studies/s.yaml");
}

// A history every option has a say in: mixed parameters, trials that lack
// two (for group), and trials still running (for the constant liar).
std::vector<TrialView> history() {
  const auto space = mixed_space();
  auto random = tpe({{"n_startup_trials", 1000}});
  std::vector<TrialView> trials;
  for (int n = 0; n < 40; ++n) {
    TrialView t;
    t.number = n;
    t.params = random->ask(space, n);
    const bool running = n >= 37;
    t.state = running ? TrialState::kRunning : TrialState::kComplete;
    if (!running) t.value = mixed_objective(t.params);
    if (n % 4 == 0) {  // two parameters missing together: a group of their own
      t.params.erase("momentum");
      t.params.erase("dropout");
    }
    trials.push_back(t);
  }
  return trials;
}

std::vector<ParamValues> suggestions(const nlohmann::json& options) {
  auto sampler = tpe(options);
  for (const auto& t : history()) sampler->tell(t);
  std::vector<ParamValues> out;
  for (int n = 40; n < 46; ++n) out.push_back(sampler->ask(mixed_space(), n));
  return out;
}

// A value for `row` other than its value in `now`, valid there, as a study
// file writes it.
nlohmann::json other_value(const TpeOptionRow& row, const TpeOptions& now) {
  const std::string text = tpe_option_text(row, now);
  if (text == "true" || text == "false") return text == "false";
  if (row.check) {
    const double v = std::stod(text);
    const bool integer = std::holds_alternative<int TpeOptions::*>(row.member);
    for (double c : {v * 4, v / 4, 0.5, 2.0}) {
      if (integer) c = std::round(c);
      if (c != v && !row.check(c, now))
        return integer ? nlohmann::json(static_cast<int64_t>(c)) : nlohmann::json(c);
    }
    FAIL("no other valid value for " << std::string(row.key));
  }
  // A name: the first one that differs ("one of a, b, c").
  std::string names = tpe_option_expected(row, now).substr(std::string("one of ").size());
  for (size_t start = 0; start < names.size();) {
    const size_t end = std::min(names.find(", ", start), names.size());
    const std::string name = names.substr(start, end - start);
    if (name != text) return name;
    start = end + 2;
  }
  FAIL("no other name for " << std::string(row.key));
  return {};
}

TEST_CASE("every row of the tpe option table is read from a study file and reaches the sampler") {
  // Some options only matter under Optuna's algorithm (consider_endpoints),
  // `startup` only while the trials asked for are startup trials.
  const std::vector<nlohmann::json> bases = {
      nlohmann::json::object(), {{"preset", "optuna"}}, {{"n_startup_trials", 50}}};
  std::vector<std::vector<ParamValues>> before;
  for (const auto& base : bases) before.push_back(suggestions(base));
  for (const auto& row : tpe_option_table()) {
    bool changed = false;
    for (size_t b = 0; b < bases.size(); ++b) {
      const TpeOptions now = dynamic_cast<const TpeSampler&>(*tpe(bases[b])).options();
      nlohmann::json options = bases[b];
      options[row.key] = other_value(row, now);
      INFO(std::string(row.key) << ": " << options.dump());
      const TpeOptions read = dynamic_cast<const TpeSampler&>(*tpe(options)).options();
      if (!std::holds_alternative<std::monostate>(row.member)) {
        const std::string text = tpe_option_text(row, read);
        CHECK((options[row.key].is_string() ? nlohmann::json(text) : nlohmann::json::parse(text)) ==
              options[row.key]);
      }
      changed = changed || suggestions(options) != before[b];
    }
    CHECK_MESSAGE(changed, std::string(row.key) << " does not change what the sampler suggests");
  }
}

TEST_CASE("the option table's keys are unique and say what they accept") {
  std::vector<std::string> keys = tpe_option_keys();
  std::sort(keys.begin(), keys.end());
  CHECK(std::adjacent_find(keys.begin(), keys.end()) == keys.end());
  for (const auto& row : tpe_option_table()) {
    INFO(std::string(row.key));
    CHECK(!tpe_option_expected(row, TpeOptions{}).empty());
    CHECK(std::string(row.description).size() > 10);
  }
}

}  // namespace
}  // namespace hpo
