// A CPU plan that fits the cores. Each of `trials` concurrent trials gets
// an equal share of the cores (cores / trials) for its compute threads
// (OMP_NUM_THREADS) and its data-loader workers (NUM_WORKERS), which run
// beside them. hpo fills the share in this order:
//
//   1. the compute threads' first cores: the profile's threads_per_trial
//      (1 without one), fewer only if the share is smaller;
//   2. the loader workers: the study's NUM_WORKERS is a maximum, so they
//      get what is left of the share, up to it;
//   3. the compute threads again: the rest of the share.
//
// So when the share is too small, NUM_WORKERS is lowered first (to 0), then
// the threads (to 1). A study pins a value with env_fixed: [NUM_WORKERS]
// or [OMP_NUM_THREADS]; a pinned value is passed as written, and when the
// pins keep the trials from fitting the plan says so.
//
// Pure: the core count and the study's wishes come in as values.
#ifndef HPO_GPU_CPU_FIT_H_
#define HPO_GPU_CPU_FIT_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hpo {

// What a study asks of the CPU, from its env and env_fixed.
struct CpuWants {
  std::optional<int> workers;  // the study's NUM_WORKERS; none: not set, so not passed
  bool workers_pinned = false;  // env_fixed: [NUM_WORKERS]
  std::optional<int> threads_pinned;  // env_fixed: [OMP_NUM_THREADS]: the study's value
};

// Reads NUM_WORKERS and OMP_NUM_THREADS (checked when the study file was
// read) and which of them env_fixed names.
CpuWants cpu_wants(const std::vector<std::pair<std::string, std::string>>& env,
                   const std::vector<std::string>& env_fixed = {});

struct CpuFit {
  int threads = 1;  // each trial's OMP_NUM_THREADS
  int workers = 0;  // each trial's NUM_WORKERS
  // "16 core(s) / 4 trial(s) = 4, minus 2 data-loader worker(s) (NUM_WORKERS) = 2"
  std::string reason;
  std::vector<std::string> notes;  // what was lowered from the study's values, and why
  std::string warning;  // set when the trials do not fit the cores because of pinned values
};

// `min_threads`: the profile's threads_per_trial, else 1.
CpuFit fit_cpu(int cores, int trials, const CpuWants& wants, int min_threads = 1);

}  // namespace hpo

#endif  // HPO_GPU_CPU_FIT_H_
