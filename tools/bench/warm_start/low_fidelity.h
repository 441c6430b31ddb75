// The earlier stage of tools/bench/warm_start: each problem's low-fidelity
// twin, as a shorter training run would measure it. Cheaper in a real sweep
// (fewer epochs); here what matters is that it is
//   biased:  its optimum is elsewhere: every numeric parameter is shifted
//            by kShift of its range (in log space where the parameter is
//            log-scaled), one fixed direction per problem and parameter;
//   rescaled: its values are kScale times the true ones plus an offset (a
//            5-epoch score sits at another level than a 20-epoch one);
//   noisier: Gaussian noise of kNoise times the problem's typical spread
//            (the interquartile range over random points) is added.
#ifndef HPO_TOOLS_BENCH_WARM_START_LOW_FIDELITY_H_
#define HPO_TOOLS_BENCH_WARM_START_LOW_FIDELITY_H_

#include "tools/bench/sampler_quality/problems.h"

namespace hpo {

inline constexpr double kShift = 0.08;
inline constexpr double kScale = 0.5;
inline constexpr double kNoise = 0.15;

// The twin of `p`; its call(params, u) reads the noise from u (and the
// problem's own noise, for tabular ones, from a hash of u).
BenchProblem low_fidelity(const BenchProblem& p);

}  // namespace hpo

#endif  // HPO_TOOLS_BENCH_WARM_START_LOW_FIDELITY_H_
