#include "samplers/pareto_layers.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "samplers/pareto.h"

namespace hpo {
namespace {

// After each point added, the kept fronts are exactly the ranks < depth
// that ranking all the points so far from scratch gives.
void check_against_scratch(size_t m, size_t depth, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> grid(0, 7);  // coarse, so that ties and duplicates occur
  ParetoLayers layers(depth);
  Losses all;
  for (int id = 0; id < 150; ++id) {
    std::vector<double> p(m);
    for (double& v : p) v = grid(rng);
    all.push_back(p);
    layers.add(id, p);
    const std::vector<int> rank = nondominated_ranks(all);
    std::vector<std::vector<int>> want;
    for (size_t i = 0; i < rank.size(); ++i) {
      if (rank[i] < 0 || static_cast<size_t>(rank[i]) >= depth) continue;
      if (want.size() <= static_cast<size_t>(rank[i]))
        want.resize(static_cast<size_t>(rank[i]) + 1);
      want[static_cast<size_t>(rank[i])].push_back(static_cast<int>(i));
    }
    std::vector<std::vector<int>> got;
    for (const auto& front : layers.fronts()) {
      got.emplace_back();
      for (const auto& q : front) {
        CHECK(q.losses == all[static_cast<size_t>(q.id)]);
        got.back().push_back(q.id);
      }
      std::sort(got.back().begin(), got.back().end());
    }
    REQUIRE(got == want);
  }
}

TEST_CASE("ParetoLayers keeps the fronts that ranking from scratch gives") {
  for (uint64_t seed = 0; seed < 4; ++seed) {
    check_against_scratch(2, 25, seed);
    check_against_scratch(3, 25, seed);
    check_against_scratch(2, 3, seed);  // fronts past the depth dropped
    check_against_scratch(4, 5, seed);
  }
}

}  // namespace
}  // namespace hpo
