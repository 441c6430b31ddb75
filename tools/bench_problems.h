// The problems of tools/bench_sampler_quality, hpo's side (the Optuna side,
// tools/bench_sampler_quality_optuna.py, defines the same ones).
#ifndef HPO_TOOLS_BENCH_PROBLEMS_H_
#define HPO_TOOLS_BENCH_PROBLEMS_H_

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "samplers/sampler.h"

namespace hpo {

struct BenchProblem {
  std::string name;
  SearchSpace space;
  Direction direction = Direction::kMinimize;
  // One objective call (noisy for tabular problems: one seed's value).
  std::function<double(const ParamValues&, std::mt19937_64&)> call;
  // What the incumbent is judged by (the mean over seeds for tabular ones).
  std::function<double(const ParamValues&)> score;
  double optimum = 0;
};

// Branin, Hartmann6, Rosenbrock-5D, Styblinski-Tang-5D, Levy-5D, and the
// mixed int/categorical/log problem.
std::vector<BenchProblem> synthetic_problems();

// One problem per CSV in `dir` (see its README.md); none if it is missing.
std::vector<BenchProblem> tabular_problems(const std::string& dir);

}  // namespace hpo

#endif  // HPO_TOOLS_BENCH_PROBLEMS_H_
