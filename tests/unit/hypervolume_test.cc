#include "samplers/hypervolume.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace hpo {
namespace {

// Exact on a grid: with integer losses and reference, the dominated region
// is a union of unit cells, each counted when some point dominates its
// lower corner.
double grid_volume(const Losses& losses, const std::vector<int>& reference) {
  const size_t m = reference.size();
  std::vector<int> cell(m, 0);
  double count = 0;
  while (true) {
    const bool covered = std::any_of(losses.begin(), losses.end(), [&](const auto& p) {
      for (size_t k = 0; k < m; ++k) {
        if (p[k] > cell[k]) return false;
      }
      return true;
    });
    if (covered) count += 1;
    size_t k = 0;
    while (k < m && ++cell[k] == reference[k]) cell[k++] = 0;
    if (k == m) break;
  }
  return count;
}

Losses random_grid_points(std::mt19937_64& rng, size_t n, size_t m, int side) {
  std::uniform_int_distribution<int> grid(0, side);  // side itself: outside
  Losses out(n, std::vector<double>(m));
  for (auto& p : out) {
    for (double& v : p) v = grid(rng);
  }
  return out;
}

TEST_CASE("hypervolume matches a count of grid cells in 2, 3, 4 and 5 dimensions") {
  std::mt19937_64 rng(3);
  for (size_t m = 2; m <= 5; ++m) {
    const int side = m <= 3 ? 12 : 5;
    for (int round = 0; round < 40; ++round) {
      const Losses points = random_grid_points(rng, 1 + static_cast<size_t>(round % 15), m, side);
      const std::vector<int> ref(m, side);
      CHECK(hypervolume(points, std::vector<double>(m, side)) ==
            doctest::Approx(grid_volume(points, ref)));
    }
  }
}

TEST_CASE("hypervolume of simple sets") {
  CHECK(hypervolume({{1, 1}}, {3, 3}) == doctest::Approx(4));
  CHECK(hypervolume({{0, 2}, {2, 0}}, {3, 3}) == doctest::Approx(5));
  CHECK(hypervolume({{4, 0}}, {3, 3}) == 0);  // beyond the reference
  CHECK(hypervolume({}, {3, 3}) == 0);
  CHECK(hypervolume({{0.5, 0.5, 0.5}}, {1, 1, 1}) == doctest::Approx(0.125));
}

TEST_CASE("contributions are what each point alone adds") {
  std::mt19937_64 rng(5);
  for (size_t m = 2; m <= 3; ++m) {
    const Losses points = random_grid_points(rng, 10, m, 8);
    const std::vector<double> ref(m, 8);
    const auto c = hypervolume_contributions(points, ref);
    for (size_t i = 0; i < points.size(); ++i) {
      Losses rest = points;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
      CHECK(c[i] == doctest::Approx(hypervolume(points, ref) - hypervolume(rest, ref)));
    }
  }
}

TEST_CASE("greedy selection picks the point of largest hypervolume first, without repeats") {
  const Losses front = {{0, 10}, {5, 5}, {10, 0}, {4, 6}};
  const auto chosen = select_by_hypervolume(front, 3, {11, 11});
  REQUIRE(chosen.size() == 3);
  CHECK(chosen[0] == 1);  // 6 * 6 = 36, the largest box alone
  CHECK(std::set<size_t>(chosen.begin(), chosen.end()).size() == 3);
  CHECK(select_by_hypervolume(front, 9, {11, 11}).size() == 4);
}

TEST_CASE("the nadir reference lies beyond every point") {
  const auto ref = nadir_reference({{1, -2}, {0, -5}});
  CHECK(ref[0] == doctest::Approx(1.1));
  CHECK(ref[1] == doctest::Approx(-1.8));
}

}  // namespace
}  // namespace hpo
