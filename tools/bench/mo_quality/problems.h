// The problems of tools/bench/mo_quality/run, hpo's side (the Optuna side,
// tools/bench/mo_quality/peer.py, defines the same ones). Every objective
// is minimized; a constrained problem's constraints are feasible at <= 0.
#ifndef HPO_TOOLS_BENCH_MO_QUALITY_PROBLEMS_H_
#define HPO_TOOLS_BENCH_MO_QUALITY_PROBLEMS_H_

#include <functional>
#include <string>
#include <vector>

#include "samplers/sampler.h"

namespace hpo {

struct MoProblem {
  std::string name;
  SearchSpace space;
  int objectives = 2;
  // Values of one trial's parameters (internal representation).
  std::function<std::vector<double>(const ParamValues&)> values;
  // Constraint values; empty function: unconstrained.
  std::function<std::vector<double>(const ParamValues&)> constraints;
};

// zdt1, zdt2, zdt3, dtlz2 (3 objectives), mixed, constrained.
std::vector<MoProblem> mo_problems();

}  // namespace hpo

#endif  // HPO_TOOLS_BENCH_MO_QUALITY_PROBLEMS_H_
