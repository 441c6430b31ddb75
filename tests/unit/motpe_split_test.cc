// Multi-objective TPE's split, kept from ask to ask, against the split
// computed from scratch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "samplers/hypervolume.h"
#include "samplers/motpe_sampler.h"
#include "samplers/pareto.h"
#include "tests/unit/motpe_split_probe.h"

namespace hpo {
namespace {

TrialView complete(int number, std::vector<double> values, double violation) {
  TrialView t;
  t.number = number;
  t.state = TrialState::kComplete;
  t.params = {{"x0", 0.5}};
  t.value = values.front();
  t.values = std::move(values);
  t.constraints = {violation};
  return t;
}

// The good trials as the split defines them, from scratch: every trial
// ranked, whole fronts in trial order, the last one cut by hypervolume
// subset selection, infeasible trials by violation and then number.
std::vector<int> scratch_good(const Losses& losses, const std::vector<double>& violations,
                              size_t cut) {
  Losses constraints;
  for (double v : violations) constraints.push_back({v});
  const std::vector<int> rank = nondominated_ranks(losses, constraints, cut);
  std::vector<int> good;
  for (int r = 0; good.size() < cut; ++r) {
    std::vector<int> front;
    for (size_t i = 0; i < rank.size(); ++i) {
      if (rank[i] == r) front.push_back(static_cast<int>(i));
    }
    if (front.empty()) break;
    if (good.size() + front.size() <= cut) {
      good.insert(good.end(), front.begin(), front.end());
    } else if (violations[static_cast<size_t>(front[0])] > 0) {
      good.insert(good.end(), front.begin(), front.begin() + static_cast<long>(cut - good.size()));
    } else {
      Losses points;
      for (int i : front) points.push_back(losses[static_cast<size_t>(i)]);
      for (size_t k : select_by_hypervolume(points, cut - good.size(), nadir_reference(points)))
        good.push_back(front[k]);
    }
  }
  std::sort(good.begin(), good.end());
  return good;
}

TEST_CASE("multi-objective TPE: the fronts kept from ask to ask give the split from scratch") {
  for (const size_t m : {size_t{2}, size_t{3}}) {
    const std::vector<Direction> dirs(m, Direction::kMinimize);
    SplitProbe s(1, dirs);
    std::mt19937_64 rng(m);
    std::uniform_int_distribution<int> grid(0, 9);  // coarse: ties, duplicates
    Losses losses;
    std::vector<double> violations;
    const auto draw = [&] {
      std::vector<double> v(m);
      for (double& x : v) x = grid(rng);
      violations.push_back(grid(rng) < 2 ? grid(rng) % 3 + 1.0 : 0.0);  // some infeasible
      losses.push_back(v);
    };
    for (int n = 0; n < 400; ++n) {
      draw();
      s.tell(complete(n, losses.back(), violations.back()));
      if (n > 10 && grid(rng) == 0) {
        // Now and then an earlier trial is told again with other values.
        const auto k = static_cast<size_t>(n / 2);
        draw();
        losses[k] = losses.back();
        violations[k] = violations.back();
        losses.pop_back();
        violations.pop_back();
        s.tell(complete(static_cast<int>(k), losses[k], violations[k]));
      }
      s.ask({{"x0", FloatDistribution{0, 1, false, std::nullopt}}}, n + 1);
      const TpeSplit split = s.probe();
      std::vector<int> below = split.below;
      std::sort(below.begin(), below.end());
      const size_t cut = std::min<size_t>(25, static_cast<size_t>(std::ceil(0.15 * (n + 1))));
      REQUIRE(below == scratch_good(losses, violations, cut));
    }
  }
}

}  // namespace
}  // namespace hpo
