// TPE keeps each group's l(x) and g(x) from one ask to the next
// (samplers/parzen_memo.h). At every ask, a sampler that kept them must
// suggest what a fresh sampler told the same history does, whichever way
// the history moved since its last ask: a trial added, a running one
// failed (the liar's observation gone), one of each (as many observations
// as before, not the same ones), a trial held back and told late, or one
// that ties with the worst good trial (the same good trials, weighted anew
// against the rest's best).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "samplers/random_sampler.h"
#include "samplers/tpe_sampler.h"
#include "samplers/tpe_split.h"
#include "tests/unit/tpe_test_space.h"

namespace hpo {
namespace {

TrialView random_trial(const SearchSpace& space, int number, TrialState state) {
  std::mt19937_64 rng(500 + static_cast<uint64_t>(number));
  TrialView t;
  t.number = number;
  t.state = state;
  for (const auto& p : space) t.params[p.name] = sample_uniform(p.distribution, rng);
  if (state == TrialState::kComplete) t.value = mixed_objective(t.params);
  return t;
}

// A value that makes the next finished trial the first of the rest: the
// worst good trial's (a tie goes to the older trial). The good trials stay,
// and under expected-improvement weights the worst of them, which improves
// on the rest's best by nothing now, drops out of l(x). `told` holds
// complete, running and failed trials only.
double first_of_the_rest(const std::map<int, TrialView>& told, const TpeOptions& options) {
  std::vector<double> values;
  for (const auto& entry : told) {
    if (entry.second.state == TrialState::kComplete) values.push_back(*entry.second.value);
  }
  std::sort(values.begin(), values.end());
  const auto cut = static_cast<size_t>(
      n_below(static_cast<int>(values.size()) + 1, options.gamma, options.split));
  return values[cut - 1];
}

// Tells `along` each change and records it; ask() checks `along` against a
// fresh sampler told the record.
struct Study {
  SearchSpace space = mixed_space();
  TpeOptions options;
  TpeSampler along{3, Direction::kMinimize, options};
  std::map<int, TrialView> told;

  explicit Study(const TpeOptions& o) : options(o), along(3, Direction::kMinimize, o) {}

  void tell(const TrialView& t) {
    along.tell(t);
    told[t.number] = t;
  }
  void ask(int number, const SearchSpace& asked) {
    TpeSampler fresh(3, Direction::kMinimize, options);
    for (const auto& entry : told) fresh.tell(entry.second);
    CHECK(along.ask(asked, number) == fresh.ask(asked, number));
  }
};

TEST_CASE("a sampler that keeps its estimators suggests what a fresh one does, at every ask") {
  TpeOptions optuna_multivariate = optuna_tpe_options();
  optuna_multivariate.multivariate = true;
  const std::vector<std::pair<const char*, TpeOptions>> cases = {
      {"default", TpeOptions{}},
      {"univariate", default_tpe_options(false)},
      {"optuna, multivariate", optuna_multivariate},
  };
  for (const auto& [name, options] : cases) {
    const std::string label = name;
    CAPTURE(label);
    Study study(options);
    SearchSpace narrower = study.space;
    narrower[3].distribution = FloatDistribution{0.0, 0.6, false, 0.1};  // dropout, wider
    int next = 0;
    std::vector<int> running, held_back;
    for (; next < 30; ++next) study.tell(random_trial(study.space, next, TrialState::kComplete));
    for (int step = 0; step < 48; ++step) {
      CAPTURE(step);
      // Under the constant liar a running trial is an observation in g(x)
      // until it ends.
      auto end_oldest = [&](TrialState state) {
        study.tell(random_trial(study.space, running.front(), state));
        running.erase(running.begin());
      };
      switch (step % 4) {
        case 0:  // more observations: trials start, one finishes
          for (int i = 0; i < 3; ++i) {
            running.push_back(next);
            study.tell(random_trial(study.space, next++, TrialState::kRunning));
          }
          study.tell(random_trial(study.space, next++, TrialState::kComplete));
          break;
        case 1:  // one fewer: a running trial fails
          end_oldest(TrialState::kFail);
          break;
        case 2:  // as many, not the same: one fails, a newer one finishes
          end_oldest(TrialState::kFail);
          held_back.push_back(next++);
          study.tell(random_trial(study.space, next++, TrialState::kComplete));
          break;
        default:  // a trial held back is told now, below newer ones; one finishes
          study.tell(random_trial(study.space, held_back.back(), TrialState::kComplete));
          held_back.pop_back();
          end_oldest(TrialState::kComplete);
          break;
      }
      if (step % 8 == 5) {  // the good trials stay, the rest's best moves up to them
        TrialView t = random_trial(study.space, next++, TrialState::kComplete);
        t.value = first_of_the_rest(study.told, options);
        study.tell(t);
      }
      study.ask(1000 + step, study.space);
      if (step % 8 == 7) study.ask(2000 + step, study.space);  // twice, nothing told between
      if (step % 8 == 3) study.ask(3000 + step, narrower);  // the same trials, another domain
    }
  }
}

}  // namespace
}  // namespace hpo
