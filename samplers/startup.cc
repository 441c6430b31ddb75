#include "samplers/startup.h"

#include <algorithm>
#include <random>

#include "samplers/random_sampler.h"
#include "samplers/sobol_startup.h"

namespace hpo {

namespace {

// At least half the parameters have a condition: such a space gets random
// draws. A branch's trials are a subset of the sequence, and on the
// bench's conditional problem (8 of 10 parameters conditional) TPE searched
// worse after Sobol points at every budget from 10 to 100 trials.
bool mostly_conditional(const SearchSpace& space) {
  size_t conditional = 0;
  for (const auto& p : space) conditional += p.condition.has_value();
  return conditional > 0 && 2 * conditional >= space.size();
}

}  // namespace

const std::vector<std::string>& startup_names() {
  static const std::vector<std::string> names = {"sobol", "random"};
  return names;
}

ParamValues startup_values(StartupKind kind, const SearchSpace& space, uint64_t seed,
                           uint64_t trial_seed, int number) {
  if (kind == StartupKind::kSobol && !mostly_conditional(space))
    return sobol_point(space, seed, number);
  std::mt19937_64 rng(trial_seed);
  ParamValues values;
  for (const auto& p : space) values[p.name] = sample_uniform(p.distribution, rng);
  return values;
}

int auto_startup_trials(int planned_trials, int dimension) {
  if (planned_trials <= 0) return 10;
  const int floor = std::min(dimension, 3);
  return std::clamp(planned_trials / 4, std::max(floor, 1), 10);
}

int auto_startup_trials(int planned_trials, const SearchSpace& space) {
  constexpr int kBranchStartup = 10;
  const int budgeted = auto_startup_trials(planned_trials, static_cast<int>(space.size()));
  if (!mostly_conditional(space) || planned_trials <= 0) return budgeted;
  return std::max(budgeted, std::min(kBranchStartup, planned_trials));
}

}  // namespace hpo
