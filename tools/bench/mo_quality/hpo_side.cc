// hpo's side of tools/bench/mo_quality/run: for each problem, hpo sampler and
// seed, one sequential study of N trials; prints each study's values.
//
// Usage: bench_mo_quality N_SEEDS N_TRIALS [FIRST_SEED]
// HPO_BENCH_SAMPLERS="hpo_nsga2,hpo_tpe" and HPO_BENCH_PROBLEMS="zdt1,dtlz2"
// run only those listed. Prints one line per study:
//   problem <TAB> sampler <TAB> seed <TAB> values
// values: the trials' objective values in trial order, trials split by ";",
// values by ","; an infeasible trial's values start with "!".
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "samplers/motpe_sampler.h"
#include "samplers/nsga2_sampler.h"
#include "samplers/pareto.h"
#include "samplers/random_sampler.h"
#include "tools/bench/listed.h"
#include "tools/bench/mo_quality/problems.h"

namespace hpo {
namespace {

const std::vector<std::string> kAllSamplers = {"hpo_nsga2", "hpo_tpe", "hpo_random"};

std::unique_ptr<Sampler> make(const std::string& name, uint64_t seed, int objectives) {
  const std::vector<Direction> dirs(static_cast<size_t>(objectives), Direction::kMinimize);
  if (name == "hpo_nsga2") return std::make_unique<Nsga2Sampler>(seed, dirs);
  if (name == "hpo_tpe") return std::make_unique<MotpeSampler>(seed, dirs);
  if (name == "hpo_random") return std::make_unique<RandomSampler>(seed, Direction::kMinimize);
  std::fprintf(stderr, "unknown sampler %s\n", name.c_str());
  std::exit(2);
}

std::string study(const MoProblem& problem, const std::string& sampler, uint64_t seed, int trials) {
  auto s = make(sampler, seed, problem.objectives);
  std::string out;
  char buf[64];
  for (int n = 0; n < trials; ++n) {
    TrialView t;
    t.number = n;
    t.state = TrialState::kRunning;
    t.params = s->ask(problem.space, n);
    s->tell(t);
    t.values = problem.values(t.params);
    t.value = t.values.front();
    if (problem.constraints) t.constraints = problem.constraints(t.params);
    t.state = TrialState::kComplete;
    s->tell(t);
    if (n > 0) out += ";";
    if (violation(t.constraints) > 0) out += "!";
    for (size_t k = 0; k < t.values.size(); ++k) {
      std::snprintf(buf, sizeof buf, "%s%.17g", k ? "," : "", t.values[k]);
      out += buf;
    }
  }
  return out;
}

int run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_mo_quality N_SEEDS N_TRIALS [FIRST_SEED]\n");
    return 2;
  }
  const int seeds = std::atoi(argv[1]), trials = std::atoi(argv[2]);
  const int first = argc > 3 ? std::atoi(argv[3]) : 0;
  const auto samplers = listed("HPO_BENCH_SAMPLERS", kAllSamplers);
  std::vector<std::string> names;
  for (const auto& p : mo_problems()) names.push_back(p.name);
  const auto wanted = listed("HPO_BENCH_PROBLEMS", names);
  struct Job {
    MoProblem problem;
    std::string sampler;
    int seed;
  };
  std::vector<Job> jobs;
  for (const auto& p : mo_problems()) {
    if (std::find(wanted.begin(), wanted.end(), p.name) == wanted.end()) continue;
    for (const auto& s : samplers) {
      for (int k = 0; k < seeds; ++k) jobs.push_back({p, s, first + k});
    }
  }
  std::vector<std::string> lines(jobs.size());
  tbb::parallel_for(size_t{0}, jobs.size(), [&](size_t i) {
    const Job& j = jobs[i];
    lines[i] = j.problem.name + "\t" + j.sampler + "\t" + std::to_string(j.seed) + "\t" +
               study(j.problem, j.sampler, static_cast<uint64_t>(j.seed), trials);
  });
  for (const auto& line : lines) std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace
}  // namespace hpo

int main(int argc, char** argv) { return hpo::run(argc, argv); }
