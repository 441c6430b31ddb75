// hpo's side of tools/bench_sampler_quality: every problem, hpo sampler and
// seed, one study of N trials; prints the incumbent's final regret.
//
// Usage: bench_sampler_quality TABULAR_DIR N_SEEDS N_TRIALS
// Prints lines: problem <TAB> sampler <TAB> seed <TAB> regret
// HPO_TPE_OPTIONS="multivariate=1,n_ei_candidates=48" changes hpo_tpe's
// options, to try variants against the same problems.
#include <tbb/parallel_for.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>

#include "samplers/random_sampler.h"
#include "samplers/tpe_sampler.h"
#include "tools/bench_problems.h"

namespace hpo {
namespace {

const char* const kSamplers[] = {"hpo_tpe", "hpo_tpe_multivariate", "hpo_tpe_unordered", "hpo_random"};

// Overrides of hpo_tpe's options from HPO_TPE_OPTIONS="key=value,...", for
// trying variants: multivariate, n_ei_candidates, gamma, prior_weight,
// consider_endpoints, consider_magic_clip.
TpeOptions tuned(TpeOptions o) {
  const char* env = std::getenv("HPO_TPE_OPTIONS");
  std::stringstream in(env ? env : "");
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const double v = std::stod(item.substr(eq + 1));
    if (key == "multivariate") o.multivariate = v != 0;
    if (key == "n_ei_candidates") o.n_ei_candidates = static_cast<int>(v);
    if (key == "gamma") o.gamma = v;
    if (key == "prior_weight") o.prior_weight = v;
    if (key == "consider_endpoints") o.consider_endpoints = v != 0;
    if (key == "consider_magic_clip") o.consider_magic_clip = v != 0;
  }
  return o;
}

std::unique_ptr<Sampler> make(const std::string& name, uint64_t seed, Direction direction) {
  if (name == "hpo_random") return std::make_unique<RandomSampler>(seed, direction);
  if (name == "hpo_tpe") return std::make_unique<TpeSampler>(seed, direction, tuned({}));
  TpeOptions options;
  options.multivariate = name == "hpo_tpe_multivariate";
  options.ordered_choices = name != "hpo_tpe_unordered";
  return std::make_unique<TpeSampler>(seed, direction, options);
}

double regret(const BenchProblem& p, const std::string& sampler, uint64_t seed, int n_trials) {
  auto s = make(sampler, seed, p.direction);
  std::mt19937_64 noise(seed * 7919 + 1);
  const double sign = p.direction == Direction::kMinimize ? 1.0 : -1.0;
  double best = INFINITY;
  ParamValues incumbent;
  for (int n = 0; n < n_trials; ++n) {
    TrialView t;
    t.number = n;
    t.state = TrialState::kComplete;
    t.params = s->ask(p.space, n);
    t.value = p.call(t.params, noise);
    if (sign * *t.value < best) {
      best = sign * *t.value;
      incumbent = t.params;
    }
    s->tell(t);
  }
  return sign * (p.score(incumbent) - p.optimum);
}

}  // namespace
}  // namespace hpo

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s TABULAR_DIR N_SEEDS N_TRIALS\n", argv[0]);
    return 2;
  }
  auto problems = hpo::synthetic_problems();
  for (auto& p : hpo::tabular_problems(argv[1])) problems.push_back(std::move(p));
  const int n_seeds = std::atoi(argv[2]), n_trials = std::atoi(argv[3]);
  const size_t n_samplers = std::size(hpo::kSamplers);
  const size_t n_runs = problems.size() * n_samplers * static_cast<size_t>(n_seeds);
  std::vector<double> regrets(n_runs);
  tbb::parallel_for(size_t{0}, n_runs, [&](size_t i) {
    const auto& p = problems[i / (n_samplers * static_cast<size_t>(n_seeds))];
    const char* sampler = hpo::kSamplers[(i / static_cast<size_t>(n_seeds)) % n_samplers];
    regrets[i] = hpo::regret(p, sampler, i % static_cast<size_t>(n_seeds), n_trials);
  });
  for (size_t i = 0; i < n_runs; ++i) {
    std::printf("%s\t%s\t%zu\t%.10g\n", problems[i / (n_samplers * static_cast<size_t>(n_seeds))].name.c_str(),
                hpo::kSamplers[(i / static_cast<size_t>(n_seeds)) % n_samplers], i % static_cast<size_t>(n_seeds),
                regrets[i]);
  }
  return 0;
}
