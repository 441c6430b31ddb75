// The problems of tools/bench/sampler_quality/run, hpo's side (the Optuna side,
// tools/bench/sampler_quality/peer.py, defines the same ones).
#ifndef HPO_TOOLS_BENCH_SAMPLER_QUALITY_PROBLEMS_H_
#define HPO_TOOLS_BENCH_SAMPLER_QUALITY_PROBLEMS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "samplers/sampler.h"

namespace hpo {

struct BenchProblem {
  std::string name;
  SearchSpace space;
  Direction direction = Direction::kMinimize;
  // One objective call. Tabular problems are noisy: `u`, uniform in [0, 1),
  // picks the seed whose value is returned; the others ignore it.
  std::function<double(const ParamValues&, double u)> call;
  // What the incumbent is judged by (the mean over seeds for tabular ones).
  std::function<double(const ParamValues&)> score;
  double optimum = 0;
};

// The bench's own random numbers: uniform in [0, 1), a hash (SplitMix64) of
// the seed, the trial and a slot. tools/bench/sampler_quality/peer.py
// computes the same, so hpo's and Optuna's studies can share draws.
double shared_unit(uint64_t seed, uint64_t trial, uint64_t slot);

// The slot of a trial's objective noise (a parameter's draws use its index).
constexpr uint64_t kNoiseSlot = 0xffff;

// A random configuration of `space` for one trial of one seed, drawn with
// shared_unit (slot = the parameter's index), without the parameters whose
// condition fails. Every sampler, hpo's and Optuna's, starts a study from the same ones, so that
// the comparison is of what each does with them, not of its random stream's luck.
ParamValues shared_random(const SearchSpace& space, uint64_t seed, int trial);

// Branin, Hartmann6, Rosenbrock-5D, Styblinski-Tang-5D, Levy-5D, the
// mixed int/categorical/log problem and the conditional one (a model
// choice, each model with its own parameters).
std::vector<BenchProblem> synthetic_problems();

// One problem per CSV in `dir` (see its README.md); none if it is missing.
std::vector<BenchProblem> tabular_problems(const std::string& dir);

// The synthetic and tabular (from `dir`) problems HPO_BENCH_PROBLEMS names; all when unset.
std::vector<BenchProblem> selected_problems(const std::string& dir);

}  // namespace hpo

#endif  // HPO_TOOLS_BENCH_SAMPLER_QUALITY_PROBLEMS_H_
