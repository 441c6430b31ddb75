// hpo's side of tools/bench/warm_start/run: per problem, sampler and seed,
// a staged sweep against a cold one at the same final budget:
//   warm: N_LOW trials on the problem's low-fidelity twin (low_fidelity.h),
//         then N_WARM trials on the problem, told the first stage's
//         trials as prior observations (Sampler::tell_prior);
//   cold: N_LOW + N_WARM trials on the problem, from scratch (or --cold).
// Prints lines: problem <TAB> sampler <TAB> seed <TAB> warm regret <TAB> cold regret,
// a regret being the final incumbent's (judged by the problem's score).
//
// Usage: bench_warm_start TABULAR_DIR N_SEEDS [N_LOW N_WARM [FIRST_SEED]]
// (defaults 5 and 10). HPO_BENCH_SAMPLERS="hpo_tpe,hpo_gp" and
// HPO_BENCH_PROBLEMS="branin,mixed" select; HPO_BENCH_STARTUP=N sets both
// samplers' n_startup_trials (default: each sampler's own default);
// HPO_BENCH_COLD=N runs the cold arm for N trials (default N_LOW + N_WARM).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "samplers/gp_sampler.h"
#include "samplers/random_sampler.h"
#include "samplers/tpe_sampler.h"
#include "tools/bench/listed.h"
#include "tools/bench/sampler_quality/problems.h"
#include "tools/bench/warm_start/low_fidelity.h"

namespace hpo {
namespace {

std::unique_ptr<Sampler> make(const std::string& name, uint64_t seed, Direction direction) {
  const char* startup = std::getenv("HPO_BENCH_STARTUP");
  if (name == "hpo_tpe") {
    TpeOptions o;
    if (startup) o.n_startup_trials = std::atoi(startup);
    return std::make_unique<TpeSampler>(seed, direction, o);
  }
  if (name == "hpo_gp") {
    GpOptions o;
    if (startup) o.n_startup_trials = std::atoi(startup);
    return std::make_unique<GpSampler>(seed, direction, o);
  }
  if (name == "hpo_random") return std::make_unique<RandomSampler>(seed, direction);
  std::fprintf(stderr, "HPO_BENCH_SAMPLERS: no sampler '%s'\n", name.c_str());
  std::exit(2);
}

// Runs `n` trials of `p` with `s`; returns them (numbered from 0).
std::vector<TrialView> study(const BenchProblem& p, Sampler& s, uint64_t seed, int n,
                             uint64_t noise_salt) {
  std::vector<TrialView> trials;
  for (int i = 0; i < n; ++i) {
    TrialView t;
    t.number = i;
    t.state = TrialState::kComplete;
    t.params = s.ask(p.space, i);
    t.value =
        p.call(t.params, shared_unit(seed + noise_salt, static_cast<uint64_t>(i), kNoiseSlot));
    s.tell(t);
    trials.push_back(t);
  }
  return trials;
}

double regret(const BenchProblem& p, const std::vector<TrialView>& trials) {
  const double sign = p.direction == Direction::kMinimize ? 1.0 : -1.0;
  const TrialView* best = nullptr;
  for (const auto& t : trials) {
    if (!best || sign * *t.value < sign * *best->value) best = &t;
  }
  return sign * (p.score(best->params) - p.optimum);
}

struct Pair {
  double warm = 0, cold = 0;
};

Pair run(const BenchProblem& p, const BenchProblem& low, const std::string& sampler, uint64_t seed,
         int n_low, int n_warm) {
  // The earlier stage has its own seed, as a study of its own would.
  auto first = make(sampler, seed ^ 0x5bd1e995ULL, p.direction);
  std::vector<TrialView> prior = study(low, *first, seed, n_low, 1000003);
  for (auto& t : prior) t.source = 1;
  auto warm = make(sampler, seed, p.direction);
  warm->tell_prior(prior);
  auto cold = make(sampler, seed, p.direction);
  const char* n_cold = std::getenv("HPO_BENCH_COLD");
  return {regret(p, study(p, *warm, seed, n_warm, 0)),
          regret(p, study(p, *cold, seed, n_cold ? std::atoi(n_cold) : n_low + n_warm, 0))};
}

}  // namespace
}  // namespace hpo

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: %s TABULAR_DIR N_SEEDS [N_LOW N_WARM [FIRST_SEED]]\n", argv[0]);
    return 2;
  }
  const std::vector<hpo::BenchProblem> problems = hpo::selected_problems(argv[1]);
  std::vector<hpo::BenchProblem> lows;
  for (const auto& p : problems) lows.push_back(hpo::low_fidelity(p));
  const size_t n_seeds = static_cast<size_t>(std::atoi(argv[2]));
  const int n_low = argc >= 5 ? std::atoi(argv[3]) : 5,
            n_warm = argc >= 5 ? std::atoi(argv[4]) : 10;
  const size_t first_seed = argc == 6 ? static_cast<size_t>(std::atoll(argv[5])) : 0;
  const auto samplers = hpo::listed("HPO_BENCH_SAMPLERS", {"hpo_tpe", "hpo_gp"});
  const size_t n_runs = problems.size() * samplers.size() * n_seeds;
  std::vector<hpo::Pair> results(n_runs);
  tbb::parallel_for(size_t{0}, n_runs, [&](size_t i) {
    const size_t p = i / (samplers.size() * n_seeds);
    results[i] = hpo::run(problems[p], lows[p], samplers[(i / n_seeds) % samplers.size()],
                          first_seed + i % n_seeds, n_low, n_warm);
  });
  for (size_t i = 0; i < n_runs; ++i) {
    std::printf("%s\t%s\t%zu\t%.10g\t%.10g\n",
                problems[i / (samplers.size() * n_seeds)].name.c_str(),
                samplers[(i / n_seeds) % samplers.size()].c_str(), first_seed + i % n_seeds,
                results[i].warm, results[i].cold);
  }
  return 0;
}
