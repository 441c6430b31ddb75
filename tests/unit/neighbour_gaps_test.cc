// The grid shortcut for the neighbour-gap bandwidths must give, bit for
// bit, what the general rule gives over the kernels sorted by value: TPE's
// pinned suggestions depend on every bandwidth.
#include "samplers/kernels/neighbour_gaps.h"

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "samplers/kernels/discrete.h"
#include "samplers/same_bits.h"

namespace hpo {
namespace {

// Random kernels on a grid of `points` values (the prior, last, may sit
// between two), as g(x)'s are: many ties, some values absent.
Eigen::ArrayXd grid_mus(std::mt19937_64& rng, const KernelDim& space, int n, bool prior) {
  const int points = static_cast<int>(std::round((space.high - space.low) / space.q));
  std::uniform_int_distribution<int> pick(0, points - 1);
  std::uniform_int_distribution<int> skew(0, 2);
  Eigen::ArrayXd mus(n + (prior ? 1 : 0));
  for (int k = 0; k < n; ++k) {
    // Some draws only from the lower half, so that runs differ in length.
    const int p = skew(rng) == 0 ? pick(rng) / 2 : pick(rng);
    mus(k) = space.low + 0.5 * space.q + p * space.q;
  }
  if (prior) mus(n) = 0.5 * (space.low + space.high);
  return mus;
}

TEST_CASE("grid neighbour gaps equal the general rule over the sorted kernels, bit for bit") {
  std::mt19937_64 rng(7);
  const std::vector<KernelDim> spaces = {
      {false, 0, -0.5, 3.5, 1.0},  // ordered choices: ranks 0..3
      {false, 0, 0.5, 10.5, 1.0},  // an int in [1, 10]
      {false, 0, -0.05, 1.05, 0.1},  // a stepped float: values off binary fractions
      {false, 0, -0.5, 0.5, 1.0},  // one point
  };
  int compared = 0;
  for (const auto& space : spaces) {
    for (int n : {0, 1, 2, 3, 5, 8, 40, 300}) {
      for (bool prior : {true, false}) {
        for (bool endpoints : {true, false}) {
          for (int rep = 0; rep < 5; ++rep) {
            const Eigen::ArrayXd mus = grid_mus(rng, space, n, prior);
            GridKernels grid;
            grid.fit_slots(mus, space);
            REQUIRE(grid.slot.size() == mus.size());
            const auto order = sorted_by_value(mus, grid.slot, grid.n_slots);
            const Eigen::ArrayXd general =
                neighbour_gaps(mus, order, space.low, space.high, endpoints);
            const Eigen::ArrayXd fast =
                grid_neighbour_gaps(mus, grid.slot, grid.n_slots, space.low, space.high, endpoints);
            CHECK(same_bits(fast, general));
            ++compared;
          }
        }
      }
    }
  }
  CHECK(compared == 4 * 8 * 2 * 2 * 5);
}

TEST_CASE("grid neighbour gaps decline kernels that share a slot but not a value") {
  // 1.0 and 1.0 + 1e-12 fall in the same half-step slot; sorted by slot
  // they are in index order, not by value, so the shortcut does not apply.
  const KernelDim space{false, 0, 0.5, 4.5, 1.0};
  Eigen::ArrayXd mus(3);
  mus << 1.0 + 1e-12, 1.0, 3.0;
  GridKernels grid;
  grid.fit_slots(mus, space);
  CHECK(grid.slot(0) == grid.slot(1));
  CHECK(grid_neighbour_gaps(mus, grid.slot, grid.n_slots, space.low, space.high, false).size() ==
        0);
}

TEST_CASE("grid slots: the nearest half step, clamped to the grid") {
  // Slots are floor(2 (mu - first) / q + 0.5), clamped to [0, 2 points - 2].
  const KernelDim space{false, 0, 0.5, 4.5, 1.0};  // points 1, 2, 3, 4
  Eigen::ArrayXd mus(7);
  mus << 1.0, 1.2, 1.3, 2.5, 4.0, -7.0, 9.0;
  GridKernels grid;
  grid.fit_slots(mus, space);
  REQUIRE(grid.n_slots == 7);
  const std::vector<int> want = {0, 0, 1, 3, 6, 0, 6};
  for (size_t k = 0; k < want.size(); ++k)
    CHECK(grid.slot(static_cast<Eigen::Index>(k)) == want[k]);
}

TEST_CASE("grid groups: one per distinct (mean, bandwidth), numbered by first kernel") {
  std::mt19937_64 rng(11);
  const KernelDim space{false, 0, -0.5, 5.5, 1.0};
  std::uniform_int_distribution<int> pick(0, 5), width(0, 3);
  for (int rep = 0; rep < 50; ++rep) {
    const int n = 1 + rep * 7;
    Eigen::ArrayXd mus(n), sigmas(n);
    for (int k = 0; k < n; ++k) {
      mus(k) = pick(rng);
      sigmas(k) = 0.25 * width(rng);
    }
    GridKernels grid;
    grid.fit_slots(mus, space);
    grid.group_kernels(mus, sigmas, space);
    // The reference: a linear search over the groups met so far.
    std::vector<std::pair<double, double>> seen;
    for (int k = 0; k < n; ++k) {
      const std::pair<double, double> key{mus(k), sigmas(k)};
      size_t g = 0;
      while (g < seen.size() && seen[g] != key) ++g;
      if (g == seen.size()) seen.push_back(key);
      CHECK(grid.group(k) == static_cast<int>(g));
    }
    CHECK(grid.group_mu.size() == static_cast<Eigen::Index>(seen.size()));
  }
}

}  // namespace
}  // namespace hpo
