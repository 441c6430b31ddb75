#include "samplers/tpe_history.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "samplers/random_sampler.h"
#include "tests/unit/tpe_test_space.h"

namespace hpo {
namespace {

// The rows holding continuous parameter `param`, sorted from scratch.
std::vector<int> sorted_by_hand(const TpeHistory& h, int param) {
  std::vector<int> rows;
  for (size_t r = 0; r < h.ranks().size(); ++r) {
    if (!std::isnan(h.value(static_cast<int>(r), param))) rows.push_back(static_cast<int>(r));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [&](int a, int b) { return h.value(a, param) < h.value(b, param); });
  return rows;
}

// Trial `n` with random parameters, a few of them repeated (ties) or left out.
TrialView random_trial(const SearchSpace& space, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  TrialView t;
  t.number = n;
  t.state = TrialState::kComplete;
  for (const auto& p : space) t.params[p.name] = sample_uniform(p.distribution, rng);
  if (n % 5 == 0) t.params["momentum"] = 0.75;
  if (n % 7 == 3) t.params.erase("lr");
  t.value = static_cast<double>(n % 11);
  return t;
}

void check_sorted(const TpeHistory& h) {
  for (size_t j = 0; j < h.params().size(); ++j) {
    CAPTURE(j);
    const KernelDim& dim = h.params()[j].kernel();
    if (dim.categorical || dim.q > 0) {
      CHECK(h.sorted(static_cast<int>(j)).empty());
    } else {
      CHECK(h.sorted(static_cast<int>(j)) == sorted_by_hand(h, static_cast<int>(j)));
    }
  }
}

TEST_CASE("tpe history: continuous parameters' rows stay sorted through every kind of tell") {
  const auto space = mixed_space();
  SearchSpace narrower = space;
  narrower[4].distribution = FloatDistribution{0.6, 0.99, false, std::nullopt};  // momentum
  std::map<int, TrialView> history;
  TpeHistory h(Direction::kMinimize, true, true);
  auto update = [&](std::vector<int> told, const SearchSpace& s) {
    h.update(history, told, s);
    check_sorted(h);
  };
  // A first update with many trials at once, then one or a few at a time.
  for (int n = 0; n < 100; n += 2) history[n] = random_trial(space, n, 1);
  update({}, space);
  for (int n = 100; n < 160; ++n) {
    history[n] = random_trial(space, n, static_cast<uint64_t>(n));
    update({n}, space);
  }
  SUBCASE("trials told late land between the others") {
    for (int n = 1; n < 40; n += 2) {
      history[n] = random_trial(space, n, 7);
      update({n}, space);
    }
  }
  SUBCASE("a trial told again with other values moves") {
    for (int n : {0, 50, 101, 159}) {
      history[n] = random_trial(space, n, 99);
      update({n, n}, space);
    }
    history[3] = random_trial(space, 3, 5);
    history[42] = random_trial(space, 42, 5);
    update({42, 3, 42}, space);
  }
  SUBCASE("a changed space sorts the values it still holds") {
    update({}, narrower);
    history[160] = random_trial(space, 160, 3);
    update({160}, narrower);
    update({}, space);
  }
  SUBCASE("many trials told at once") {
    std::vector<int> told;
    for (int n = 1; n < 160; n += 2) {
      history[n] = random_trial(space, n, 11);
      told.push_back(n);
    }
    update(told, space);
  }
}

}  // namespace
}  // namespace hpo
