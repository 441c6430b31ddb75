// The startup trials of the model-based samplers (TPE, GP): how they are
// drawn and how many there are.
#ifndef HPO_SAMPLERS_STARTUP_H_
#define HPO_SAMPLERS_STARTUP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "samplers/sampler.h"

namespace hpo {

enum class StartupKind {
  kSobol,  // scrambled Sobol points (sobol_startup.h): space-filling
  kRandom,  // independent uniform draws, the random sampler's
};

// The names a study file uses (`startup: sobol`), in the enum's order.
const std::vector<std::string>& startup_names();

// The startup values of trial `number` for every parameter of `space`,
// inactive ones included. kRandom draws exactly what the random sampler
// draws for `trial_seed` (Sampler::trial_seed(number)); kSobol is
// sobol_point of the sampler's `seed`, except in a space where at least
// half the parameters have a condition, which gets kRandom's draws.
ParamValues startup_values(StartupKind kind, const SearchSpace& space, uint64_t seed,
                           uint64_t trial_seed, int number);

// The startup count when the study file sets none, for a study that plans
// `planned_trials` trials (0: unknown) over `dimension` parameters. Unknown
// budget: 10, as before. Otherwise a quarter of the budget, at least
// min(dimension, 3) and at most 10 (measured with
// tools/bench/sampler_quality at 10 to 100 trials, docs/benchmarks.md): a
// model that starts after two or three points beats one that starts after
// ten at budgets of 10 to 20, and the GP (and TPE) need more points only as
// the budget allows them.
int auto_startup_trials(int planned_trials, int dimension);

// The startup count for `space`: auto_startup_trials of its size, except
// that a space where at least half the parameters have a condition keeps
// 10 (or the whole budget, when smaller). Each branch of such a space
// needs trials of its own before a model can compare the branches; after
// two or three startup trials TPE builds a branch's model from one point.
// On the bench's conditional problem (three branches), TPE after 3 or 5
// random startup trials was behind TPE after 10 at 10, 20 and 50 trials
// (docs/benchmarks.md).
int auto_startup_trials(int planned_trials, const SearchSpace& space);

}  // namespace hpo

#endif  // HPO_SAMPLERS_STARTUP_H_
