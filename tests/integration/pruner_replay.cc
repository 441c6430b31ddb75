// Replays a simulated study through one of hpo's pruners and prints every
// decision as JSON, for pruner_compat.py to compare with Optuna's pruners on
// the same simulation. Usage: pruner_replay SPEC_JSON
//
// SPEC: {"pruner": "median|percentile|successive_halving|hyperband",
//        "options": {...}, "direction": "maximize|minimize", "study": NAME,
//        "n_trials": N, "n_steps": S, "concurrency": K}
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "pruners/hyperband_pruner.h"
#include "pruners/percentile_pruner.h"
#include "pruners/successive_halving_pruner.h"

namespace {

// Must match curve() in pruner_compat.py operation for operation.
double curve(int n, int s) {
  if (n % 7 == 3 && s == 2) return std::numeric_limits<double>::quiet_NaN();
  const double base = std::fmod(std::fabs(std::sin(n * 12.9898) * 43758.5453), 1.0);
  const double noise = 0.05 * std::sin(n * 3.0 + s * 1.7);
  return base * (1.0 - std::exp(-(s + 1) / 5.0)) + noise;
}

std::unique_ptr<hpo::Pruner> make(const nlohmann::json& spec) {
  const auto& o = spec["options"];
  const std::string name = spec["pruner"];
  if (name == "median" || name == "percentile") {
    hpo::PercentileOptions p;
    p.percentile = name == "median" ? 50.0 : o.value("percentile", 25.0);
    p.n_startup_trials = o.value("n_startup_trials", 5);
    p.n_warmup_steps = o.value("n_warmup_steps", 0);
    p.interval_steps = o.value("interval_steps", 1);
    p.n_min_trials = o.value("n_min_trials", 1);
    return std::make_unique<hpo::PercentilePruner>(p);
  }
  if (name == "successive_halving") {
    hpo::SuccessiveHalvingOptions p;
    if (o.contains("min_resource")) p.min_resource = o["min_resource"].get<int>();
    p.reduction_factor = o.value("reduction_factor", 4);
    p.min_early_stopping_rate = o.value("min_early_stopping_rate", 0);
    p.bootstrap_count = o.value("bootstrap_count", 0);
    return std::make_unique<hpo::SuccessiveHalvingPruner>(p);
  }
  hpo::HyperbandOptions p;
  p.min_resource = o.value("min_resource", 1);
  if (o.contains("max_resource")) p.max_resource = o["max_resource"].get<int>();
  p.reduction_factor = o.value("reduction_factor", 3);
  p.bootstrap_count = o.value("bootstrap_count", 0);
  return std::make_unique<hpo::HyperbandPruner>(p);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: pruner_replay SPEC_JSON\n";
    return 2;
  }
  const auto spec = nlohmann::json::parse(argv[1]);
  auto pruner = make(spec);
  hpo::PrunerStudy study;
  study.name = spec["study"];
  study.direction =
      spec["direction"] == "maximize" ? hpo::Direction::kMaximize : hpo::Direction::kMinimize;
  const int n_trials = spec["n_trials"], n_steps = spec["n_steps"],
            concurrency = spec["concurrency"];

  nlohmann::json log = nlohmann::json::array();
  std::vector<int> active;  // trial numbers; their step is the size of their curve so far
  int next = 0, finished = 0;
  while (finished < n_trials) {
    while (static_cast<int>(active.size()) < concurrency && next < n_trials) {
      study.trials.push_back({next, hpo::TrialState::kRunning, {}, {}});
      active.push_back(next++);
    }
    std::vector<int> still;
    for (int n : active) {
      auto& trial = study.trials[static_cast<size_t>(n)];
      const int s = static_cast<int>(trial.intermediate.size());
      const double v = curve(n, s);
      trial.intermediate[s] = v;
      const auto decision = pruner->decide(study, trial);
      for (const auto& [rung, value] : decision.completed_rungs) trial.rungs[rung] = value;
      log.push_back({n, s, decision.prune});
      if (decision.prune) {
        trial.state = hpo::TrialState::kPruned;
        ++finished;
      } else if (s == n_steps - 1) {
        trial.state = std::isnan(v) ? hpo::TrialState::kFail : hpo::TrialState::kComplete;
        ++finished;
      } else {
        still.push_back(n);
      }
    }
    active = still;
  }
  std::cout << log.dump() << "\n";
  return 0;
}
