#include "hpo/run/bracket_sampler.h"

#include <doctest/doctest.h>

#include <map>
#include <set>

namespace hpo {
namespace {

// Records, per asked trial number, which trials (and how many prior
// observations) the sampler that answered had been told.
struct BracketAsks {
  std::map<int, std::set<int>> told;
  std::map<int, size_t> priors;
};

class BracketRecorder : public Sampler {
 public:
  explicit BracketRecorder(BracketAsks& asks) : Sampler(1, Direction::kMaximize), asks_(asks) {}
  std::string name() const override { return "recorder"; }
  ParamValues ask(const SearchSpace&, int number) override {
    std::set<int> told;
    for (const auto& [n, t] : history()) told.insert(n);
    asks_.told[number] = told;
    asks_.priors[number] = prior().size();
    return {{"x", 0.5}};
  }

 private:
  BracketAsks& asks_;
};

TrialView finished_trial(int number, TrialState state, int steps) {
  TrialView t;
  t.number = number;
  t.state = state;
  if (state == TrialState::kComplete) t.value = number;
  for (int s = 0; s < steps; ++s) t.intermediate[s] = number + s;
  return t;
}

const SearchSpace kBracketSpace = {{"x", FloatDistribution{0, 1, false, std::nullopt}}};

TEST_CASE("under Hyperband each trial is sampled from its own bracket's trials only") {
  HyperbandOptions options;
  options.max_resource = 27;  // four brackets, known before any trial
  HyperbandPruner pruner(options);
  BracketAsks asks;
  BracketSampler sampler([&] { return std::make_unique<BracketRecorder>(asks); }, pruner, "study");
  sampler.tell_prior({finished_trial(0, TrialState::kComplete, 0)});
  for (int n = 0; n < 80; ++n) sampler.tell(finished_trial(n, TrialState::kComplete, 27));
  std::set<int> brackets;
  for (int n = 80; n < 160; ++n) {
    sampler.ask(kBracketSpace, n);
    const int b = pruner.bracket_of("study", n);
    brackets.insert(b);
    std::set<int> same;
    for (int m = 0; m < n; ++m)
      if (pruner.bracket_of("study", m) == b) same.insert(m);
    CAPTURE(n);
    CHECK(asks.told[n] == same);  // the trials asked before it are told too (below)
    CHECK(asks.priors[n] == 1);  // every bracket gets the prior observations
    // What it was told later reaches the bracket's sampler already made.
    sampler.tell(finished_trial(n, TrialState::kComplete, 27));
  }
  CHECK(pruner.n_brackets() == 4);
  CHECK(brackets.size() == 4);  // the check above saw every bracket
}

TEST_CASE("until the brackets are known every trial samples from all; then from its own") {
  HyperbandPruner pruner(HyperbandOptions{});  // auto max_resource: needs a COMPLETE trial
  BracketAsks asks;
  BracketSampler sampler([&] { return std::make_unique<BracketRecorder>(asks); }, pruner, "s");
  for (int n = 0; n < 10; ++n) sampler.tell(finished_trial(n, TrialState::kPruned, 2));
  sampler.ask(kBracketSpace, 10);
  CHECK(pruner.n_brackets() == 0);
  CHECK(asks.told[10].size() == 10);
  sampler.tell(finished_trial(10, TrialState::kComplete, 9));  // max_resource 9: three brackets
  for (int n = 11; n < 40; ++n) {
    sampler.ask(kBracketSpace, n);
    std::set<int> same;
    for (int m = 0; m <= 10; ++m)
      if (pruner.bracket_of("s", m) == pruner.bracket_of("s", n)) same.insert(m);
    CAPTURE(n);
    CHECK(asks.told[n] == same);
  }
  CHECK(pruner.n_brackets() == 3);
}

}  // namespace
}  // namespace hpo
