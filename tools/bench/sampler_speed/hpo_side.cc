// hpo's side of tools/bench/sampler_speed/run: the latency of one TPE suggestion
// on the mission's 4-parameter space after N finished random trials.
//
// What is timed is what hpo's run loop does for each new trial
// (StudyRunner::new_trial): tell the sampler what changed since the last
// ask (here, the previous suggestion's trial, told as FAIL so that the
// history TPE learns from stays at N trials, as on Optuna's side), then ask,
// with the allocator set as hpo's main() sets it.
//
// Usage: bench_sampler_speed N_TRIALS N_ASKS [--univariate] [--optuna-preset] [--unordered]
//                            [--gp] [--complete]
//   --univariate: `multivariate: false` under the default preset.
//   --gp: the GP sampler (its defaults) instead of TPE.
//   --complete: each suggestion is told COMPLETE (a random value) instead
//     of FAIL, so that every ask meets a history one trial longer, as in a
//     sequential study: TPE then refits g(x) at every ask
//     (samplers/parzen_memo.h keeps it only while its input is the same).
// Prints: the median latency and the mean CPU time per suggestion (all
// threads), in milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "hpo/run/heap_settings.h"
#include "samplers/gp_sampler.h"
#include "samplers/random_sampler.h"
#include "samplers/tpe_sampler.h"

namespace {

hpo::SearchSpace mission_space() {
  auto choices = [](std::vector<int64_t> values) {
    hpo::CategoricalDistribution d;
    for (auto v : values) d.choices.emplace_back(v);
    return d;
  };
  return {
      {"batch_size", choices({256, 512, 1024, 2048})},
      {"hidden_size", choices({32, 64, 128})},
      {"grad_accum", choices({1, 2, 4})},
      {"lr", hpo::FloatDistribution{5e-6, 5e-3, true, std::nullopt}},
  };
}

hpo::TpeOptions options_from(int argc, char** argv) {
  hpo::TpeOptions options;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--univariate") hpo::set_tpe_mode("default", false, options);
    if (arg == "--optuna-preset") options = hpo::optuna_tpe_options();
    if (arg == "--unordered") options.ordered_choices = false;
  }
  return options;
}

std::unique_ptr<hpo::Sampler> sampler_from(int argc, char** argv) {
  for (int i = 3; i < argc; ++i) {
    if (std::string(argv[i]) == "--gp")
      return std::make_unique<hpo::GpSampler>(1, hpo::Direction::kMaximize);
  }
  return std::make_unique<hpo::TpeSampler>(1, hpo::Direction::kMaximize, options_from(argc, argv));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s N_TRIALS N_ASKS [--univariate] [--optuna-preset] [--unordered] [--gp] "
                 "[--complete]\n",
                 argv[0]);
    return 2;
  }
  hpo::keep_freed_heap();  // as hpo's main() does
  const int n_trials = std::atoi(argv[1]);
  const int n_asks = std::atoi(argv[2]);
  const auto space = mission_space();
  const auto owned = sampler_from(argc, argv);
  hpo::Sampler& sampler = *owned;
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> objective(0.0, 1.0);
  for (int n = 0; n < n_trials; ++n) {
    hpo::TrialView t;
    t.number = n;
    t.state = hpo::TrialState::kComplete;
    for (const auto& p : space) t.params[p.name] = hpo::sample_uniform(p.distribution, rng);
    t.value = objective(rng);
    sampler.tell(t);
  }
  // The first ask sees the history all at once, as a resumed study's does.
  bool complete = false;
  for (int i = 3; i < argc; ++i) complete = complete || std::string(argv[i]) == "--complete";
  hpo::TrialView last;
  last.number = n_trials;
  last.state = complete ? hpo::TrialState::kComplete : hpo::TrialState::kFail;
  last.params = sampler.ask(space, last.number);
  std::vector<double> ms;
  const std::clock_t cpu_start = std::clock();
  for (int i = 0; i < n_asks; ++i) {
    if (complete) last.value = objective(rng);
    const auto start = std::chrono::steady_clock::now();
    sampler.tell(last);
    last.params = sampler.ask(space, ++last.number);
    const auto stop = std::chrono::steady_clock::now();
    if (last.params.size() != space.size()) return 1;
    ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  std::sort(ms.begin(), ms.end());
  std::printf("%.4f %.4f\n", ms[ms.size() / 2], cpu_ms / n_asks);
  return 0;
}
