// hpo's side of tools/bench/mo_speed/run: the time of one suggestion of a
// multi-objective sampler after N finished trials.
//
// Usage: bench_mo_speed SAMPLER OBJECTIVES N_TRIALS [ASKS]
// SAMPLER: tpe (multi-objective TPE) or nsga2. The history: N trials with
// random parameters (3 uniform, 1 log-uniform) and the values of ZDT1 (2
// objectives) or DTLZ2 (3) at them. Then ASKS (default 20) suggestions,
// each as hpo's run loop makes it: a tell of the previous suggestion,
// COMPLETE with the problem's values (so that each ask has a new finished
// trial to take in, as in a study: the history grows from N to N + ASKS),
// and the ask. Prints one line:
//   sampler <TAB> objectives <TAB> trials <TAB> median ms <TAB> mean CPU ms
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "samplers/motpe_sampler.h"
#include "samplers/nsga2_sampler.h"
#include "samplers/random_sampler.h"

namespace hpo {
namespace {

SearchSpace space() {
  return {{"x0", FloatDistribution{0, 1, false, std::nullopt}},
          {"x1", FloatDistribution{0, 1, false, std::nullopt}},
          {"x2", FloatDistribution{0, 1, false, std::nullopt}},
          {"lr", FloatDistribution{1e-5, 1, true, std::nullopt}}};
}

std::vector<double> values(const ParamValues& p, int objectives) {
  const double d = (std::log10(p.at("lr")) + 5) / 5;  // in [0, 1]
  if (objectives == 2) {
    const double g = 1 + 9 * (p.at("x1") + p.at("x2") + d) / 3;
    return {p.at("x0"), g * (1 - std::sqrt(p.at("x0") / g))};
  }
  const double g = (p.at("x2") - 0.5) * (p.at("x2") - 0.5) + (d - 0.5) * (d - 0.5);
  const double a = p.at("x0") * M_PI / 2, b = p.at("x1") * M_PI / 2;
  return {(1 + g) * std::cos(a) * std::cos(b), (1 + g) * std::cos(a) * std::sin(b),
          (1 + g) * std::sin(a)};
}

double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

int run(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench_mo_speed tpe|nsga2 OBJECTIVES N_TRIALS [ASKS]\n");
    return 2;
  }
  const std::string name = argv[1];
  const int objectives = std::atoi(argv[2]), n = std::atoi(argv[3]);
  const int asks = argc > 4 ? std::atoi(argv[4]) : 20;
  const std::vector<Direction> dirs(static_cast<size_t>(objectives), Direction::kMinimize);
  std::unique_ptr<Sampler> s;
  if (name == "tpe")
    s = std::make_unique<MotpeSampler>(1, dirs);
  else if (name == "nsga2")
    s = std::make_unique<Nsga2Sampler>(1, dirs);
  else
    return 2;
  RandomSampler random(2, Direction::kMinimize);
  for (int i = 0; i < n; ++i) {
    TrialView t;
    t.number = i;
    t.state = TrialState::kComplete;
    t.params = random.ask(space(), i);
    t.values = values(t.params, objectives);
    t.value = t.values.front();
    s->tell(t);
  }
  std::vector<double> wall;
  double cpu = 0;
  TrialView last;
  for (int k = 0; k <= asks; ++k) {
    const double c0 = cpu_ms();
    const auto w0 = std::chrono::steady_clock::now();
    if (k > 0) s->tell(last);
    last = TrialView{};
    last.number = n + k;
    last.params = s->ask(space(), n + k);
    last.values = values(last.params, objectives);
    last.value = last.values.front();
    last.state = TrialState::kComplete;
    const auto w1 = std::chrono::steady_clock::now();
    if (k == 0) continue;  // the first ask reads the whole history in
    wall.push_back(std::chrono::duration<double, std::milli>(w1 - w0).count());
    cpu += cpu_ms() - c0;
  }
  std::sort(wall.begin(), wall.end());
  std::printf("%s\t%d\t%d\t%.4f\t%.4f\n", name.c_str(), objectives, n, wall[wall.size() / 2],
              cpu / asks);
  return 0;
}

}  // namespace
}  // namespace hpo

int main(int argc, char** argv) { return hpo::run(argc, argv); }
