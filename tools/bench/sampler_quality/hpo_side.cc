// hpo's side of tools/bench/sampler_quality/run: every problem, hpo sampler and
// seed, one study of N trials; prints the incumbent's final regret.
//
// Usage: bench_sampler_quality TABULAR_DIR N_SEEDS N_TRIALS [FIRST_SEED]
// Prints lines: problem <TAB> sampler <TAB> seed <TAB> regret <TAB> found_at,
// found_at being the trial (0-based) that became the final incumbent.
// Seeds are FIRST_SEED (default 0) onwards, so that a setting tuned on some
// seeds can be checked on others.
// HPO_TPE_OPTIONS="preset=optuna,multivariate=true,bandwidth=scott" changes
// hpo_tpe's options, to try variants against the same problems, with the
// keys, values and checks of a study file (samplers/tpe_option_table.h);
// HPO_BENCH_SAMPLERS="hpo_tpe" and HPO_BENCH_PROBLEMS="branin,mixed" run
// only the samplers and problems listed.
// Every study's first 10 trials (TPE's random startup) are the bench's
// shared_random() draws, as on Optuna's side, and the objective's noise is
// shared_unit() of the seed and trial; HPO_BENCH_STARTUP=own lets each
// sampler draw its own startup trials instead.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "samplers/auto_sampler.h"
#include "samplers/gp_sampler.h"
#include "samplers/random_sampler.h"
#include "samplers/tpe_option_table.h"
#include "samplers/tpe_sampler.h"
#include "tools/bench/listed.h"
#include "tools/bench/sampler_quality/problems.h"

namespace hpo {
namespace {

// hpo_tpe: the default (multivariate); hpo_tpe_univariate: the default for
// one model per parameter (`multivariate: false`); hpo_tpe_unordered: without ordered numeric
// choices; hpo_tpe_optuna: the Optuna 3.1 preset (univariate and unordered,
// as Optuna); hpo_gp: the Gaussian-process sampler with its defaults;
// hpo_auto: `sampler: auto`, hpo's default, as `hpo run -n N_TRIALS` makes
// it (startup count from the budget); hpo_gp_budget and hpo_tpe_budget:
// auto's two samplers alone, with that startup (named only, to measure
// auto's switch points). HPO_AUTO_GP_TRIALS, HPO_AUTO_MAX_PARAMETERS and
// HPO_AUTO_NUMERIC_SHARE change auto's thresholds, HPO_BENCH_STARTUP_TRIALS
// the budget samplers' startup count.
const std::vector<std::string> kAllSamplers = {
    "hpo_tpe", "hpo_tpe_univariate", "hpo_tpe_unordered", "hpo_tpe_optuna", "hpo_random", "hpo_gp",
    "hpo_auto"};
const std::vector<std::string> kNamedOnlySamplers = {"hpo_gp_budget", "hpo_tpe_budget"};

// A value of HPO_TPE_OPTIONS as a study file would hold it: true and false
// are flags, then integers, then numbers, else a name.
TpeOptionValue option_value(const std::string& text) {
  TpeOptionValue out;
  out.written = text;
  char* end = nullptr;
  if (text == "true" || text == "false") {
    out.value = text == "true";
  } else if (const long long i = std::strtoll(text.c_str(), &end, 10);
             !text.empty() && *end == '\0') {
    out.value = static_cast<int64_t>(i);
  } else if (const double d = std::strtod(text.c_str(), &end); !text.empty() && *end == '\0') {
    out.value = d;
  } else {
    out.value = text;
  }
  return out;
}

// hpo_tpe's options, adjusted by HPO_TPE_OPTIONS="key=value,...", for trying
// variants: the keys, values and checks of a study file
// (samplers/tpe_option_table.h). Exits on a bad one.
TpeOptions tuned() {
  const char* env = std::getenv("HPO_TPE_OPTIONS");
  std::stringstream in(env ? env : "");
  std::map<std::string, TpeOptionValue> values;
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "HPO_TPE_OPTIONS: expected key=value, got '%s'\n", item.c_str());
      std::exit(2);
    }
    values[item.substr(0, eq)] = option_value(item.substr(eq + 1));
  }
  TpeOptions o;
  if (const auto error = read_tpe_options(values, o)) {
    if (error->expected.empty()) {
      std::fprintf(stderr, "HPO_TPE_OPTIONS: unknown tpe option '%s'\n", error->key.c_str());
    } else {
      std::fprintf(stderr, "HPO_TPE_OPTIONS: %s: expected %s, got %s\n", error->key.c_str(),
                   error->expected.c_str(), values[error->key].written.c_str());
    }
    std::exit(2);
  }
  return o;
}

double env_number(const char* variable, double fallback) {
  const char* env = std::getenv(variable);
  return env ? std::atof(env) : fallback;
}

// auto's samplers as a run of `n_trials` over `space` makes them.
template <typename Options>
Options budget_options(const SearchSpace& space, int n_trials) {
  Options o;
  o.n_startup_trials = static_cast<int>(
      env_number("HPO_BENCH_STARTUP_TRIALS", auto_startup_trials(n_trials, space)));
  return o;
}

std::unique_ptr<Sampler> make(const std::string& name, uint64_t seed, Direction direction,
                              const SearchSpace& space = {}, int n_trials = 0) {
  if (name == "hpo_auto") {
    AutoThresholds t;
    t.gp_trials = static_cast<int>(env_number("HPO_AUTO_GP_TRIALS", t.gp_trials));
    t.max_gp_parameters =
        static_cast<int>(env_number("HPO_AUTO_MAX_PARAMETERS", t.max_gp_parameters));
    t.min_numeric_share = env_number("HPO_AUTO_NUMERIC_SHARE", t.min_numeric_share);
    return std::make_unique<AutoSampler>(seed, direction,
                                         budget_options<TpeOptions>(space, n_trials),
                                         budget_options<GpOptions>(space, n_trials), t);
  }
  if (name == "hpo_gp_budget")
    return std::make_unique<GpSampler>(seed, direction, budget_options<GpOptions>(space, n_trials));
  if (name == "hpo_tpe_budget") {
    return std::make_unique<TpeSampler>(seed, direction,
                                        budget_options<TpeOptions>(space, n_trials));
  }
  if (name == "hpo_random") return std::make_unique<RandomSampler>(seed, direction);
  if (name == "hpo_gp") return std::make_unique<GpSampler>(seed, direction);
  if (name == "hpo_tpe") return std::make_unique<TpeSampler>(seed, direction, tuned());
  if (name == "hpo_tpe_optuna")
    return std::make_unique<TpeSampler>(seed, direction, optuna_tpe_options());
  TpeOptions options;
  if (name == "hpo_tpe_univariate") {
    options = default_tpe_options(false);
  } else if (name == "hpo_tpe_unordered") {
    options.ordered_choices = false;
  } else {
    std::fprintf(stderr, "HPO_BENCH_SAMPLERS: no sampler '%s'\n", name.c_str());
    std::exit(2);
  }
  return std::make_unique<TpeSampler>(seed, direction, options);
}

struct RunResult {
  double regret = 0.0;
  int found_at = -1;  // the trial that became the final incumbent
};

// How many first trials are the bench's shared draws: TPE's 10 random
// startup trials, in hpo and Optuna alike; 0 with HPO_BENCH_STARTUP=own.
int shared_trials() {
  const char* env = std::getenv("HPO_BENCH_STARTUP");
  const std::string mode = env ? env : "shared";
  if (mode == "shared") return 10;
  if (mode == "own") return 0;
  std::fprintf(stderr, "HPO_BENCH_STARTUP: '%s' is neither 'shared' nor 'own'\n", mode.c_str());
  std::exit(2);
}

RunResult run(const BenchProblem& p, const std::string& sampler, uint64_t seed, int n_trials,
              int n_shared) {
  auto s = make(sampler, seed, p.direction, p.space, n_trials);
  const double sign = p.direction == Direction::kMinimize ? 1.0 : -1.0;
  double best = INFINITY;
  ParamValues incumbent;
  RunResult result;
  for (int n = 0; n < n_trials; ++n) {
    TrialView t;
    t.number = n;
    t.state = TrialState::kComplete;
    t.params = n < n_shared ? shared_random(p.space, seed, n) : s->ask(p.space, n);
    t.value = p.call(t.params, shared_unit(seed, static_cast<uint64_t>(n), kNoiseSlot));
    // Strictly better only, as Optuna's best_trial: ties keep the first.
    if (sign * *t.value < best) {
      best = sign * *t.value;
      incumbent = t.params;
      result.found_at = n;
    }
    s->tell(t);
  }
  result.regret = sign * (p.score(incumbent) - p.optimum);
  return result;
}

}  // namespace
}  // namespace hpo

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: %s TABULAR_DIR N_SEEDS N_TRIALS [FIRST_SEED]\n", argv[0]);
    return 2;
  }
  const std::vector<hpo::BenchProblem> problems = hpo::selected_problems(argv[1]);
  const int n_seeds = std::atoi(argv[2]), n_trials = std::atoi(argv[3]);
  const size_t first_seed = argc == 5 ? static_cast<size_t>(std::atoll(argv[4])) : 0;
  // Exits on an unknown name.
  const auto names = hpo::listed("HPO_BENCH_SAMPLERS", hpo::kAllSamplers, hpo::kNamedOnlySamplers);
  const int n_shared = hpo::shared_trials();
  const size_t n_samplers = names.size();
  const size_t n_runs = problems.size() * n_samplers * static_cast<size_t>(n_seeds);
  std::vector<hpo::RunResult> results(n_runs);
  tbb::parallel_for(size_t{0}, n_runs, [&](size_t i) {
    const auto& p = problems[i / (n_samplers * static_cast<size_t>(n_seeds))];
    const auto& sampler = names[(i / static_cast<size_t>(n_seeds)) % n_samplers];
    results[i] =
        hpo::run(p, sampler, first_seed + i % static_cast<size_t>(n_seeds), n_trials, n_shared);
  });
  for (size_t i = 0; i < n_runs; ++i) {
    std::printf("%s\t%s\t%zu\t%.10g\t%d\n",
                problems[i / (n_samplers * static_cast<size_t>(n_seeds))].name.c_str(),
                names[(i / static_cast<size_t>(n_seeds)) % n_samplers].c_str(),
                first_seed + i % static_cast<size_t>(n_seeds), results[i].regret,
                results[i].found_at);
  }
  return 0;
}
