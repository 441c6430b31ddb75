#include "samplers/pareto.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace hpo {
namespace {

// Random loss vectors on a coarse grid, so that ties and duplicates occur.
Losses random_points(std::mt19937_64& rng, size_t n, size_t m) {
  std::uniform_int_distribution<int> grid(0, 6);
  Losses out(n, std::vector<double>(m));
  for (auto& p : out) {
    for (double& v : p) v = grid(rng);
  }
  return out;
}

// The definition: rank r holds the points that only points of ranks < r
// (constrained-)dominate.
std::vector<int> brute_ranks(const Losses& losses, const Losses& constraints) {
  const size_t n = losses.size();
  std::vector<int> rank(n, -1);
  const std::vector<double> none;
  for (int r = 0;; ++r) {
    std::vector<size_t> front;
    for (size_t i = 0; i < n; ++i) {
      if (rank[i] >= 0) continue;
      bool beaten = false;
      for (size_t j = 0; j < n && !beaten; ++j) {
        if (j == i || rank[j] >= 0) continue;
        beaten = constrained_dominates(losses[j], constraints.empty() ? none : constraints[j],
                                       losses[i], constraints.empty() ? none : constraints[i]);
      }
      if (!beaten) front.push_back(i);
    }
    if (front.empty()) break;
    for (size_t i : front) rank[i] = r;
  }
  return rank;
}

TEST_CASE("to_losses negates the objectives to maximize") {
  CHECK(to_losses({1, 2, 3}, {Direction::kMaximize, Direction::kMinimize, Direction::kMaximize}) ==
        std::vector<double>{-1, 2, -3});
}

TEST_CASE("dominates needs no worse everywhere and better somewhere") {
  CHECK(dominates({1, 2}, {1, 3}));
  CHECK_FALSE(dominates({1, 2}, {1, 2}));
  CHECK_FALSE(dominates({1, 4}, {2, 3}));
  CHECK_FALSE(dominates({2, 3}, {1, 2}));
}

TEST_CASE("constrained domination: feasible first, then the smaller violation") {
  CHECK(constrained_dominates({9, 9}, {0, -1}, {0, 0}, {0.5}));  // feasible beats infeasible
  CHECK_FALSE(constrained_dominates({0, 0}, {0.5}, {9, 9}, {-1}));
  CHECK(constrained_dominates({9, 9}, {0.1, 0.2}, {0, 0}, {0.5}));  // 0.3 < 0.5
  CHECK_FALSE(constrained_dominates({0, 0}, {0.5}, {9, 9}, {0.25, 0.25}));  // a tie
  CHECK(constrained_dominates({1, 1}, {-1}, {2, 2}, {0}));  // both feasible: by losses
  CHECK_FALSE(constrained_dominates({1, 3}, {}, {2, 2}, {}));
  CHECK(violation({std::nan("")}) == std::numeric_limits<double>::infinity());
}

TEST_CASE("non-dominated ranks match the definition on random fronts") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const size_t m = 2 + static_cast<size_t>(round % 3);
    const Losses losses = random_points(rng, 1 + static_cast<size_t>(round % 40), m);
    Losses constraints;
    if (round % 2) {
      std::uniform_int_distribution<int> c(-2, 2);
      for (size_t i = 0; i < losses.size(); ++i)
        constraints.push_back({static_cast<double>(c(rng)), static_cast<double>(c(rng))});
    }
    CHECK(nondominated_ranks(losses, constraints) == brute_ranks(losses, constraints));
  }
}

TEST_CASE("ranking can stop after the fronts that hold the best few") {
  const Losses losses = {{0, 3}, {3, 0}, {1, 4}, {4, 1}, {5, 5}};
  CHECK(nondominated_ranks(losses, {}, 2) == std::vector<int>{0, 0, -1, -1, -1});
  CHECK(nondominated_ranks(losses, {}, 3) == std::vector<int>{0, 0, 1, 1, -1});
  CHECK(pareto_front(losses) == std::vector<size_t>{0, 1});
}

TEST_CASE("crowding distance matches its definition on random fronts") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  for (int round = 0; round < 50; ++round) {
    const size_t n = 3 + static_cast<size_t>(round % 10), m = 2 + static_cast<size_t>(round % 2);
    Losses front(n, std::vector<double>(m));
    for (auto& p : front) {
      for (double& v : p) v = u(rng);  // distinct with probability 1
    }
    const auto d = crowding_distance(front);
    for (size_t i = 0; i < n; ++i) {
      double expected = 0;
      bool extreme = false;
      for (size_t k = 0; k < m; ++k) {
        double lo = 1e9, hi = -1e9, below = -1e9, above = 1e9;
        for (const auto& q : front) {
          lo = std::min(lo, q[k]);
          hi = std::max(hi, q[k]);
          if (q[k] < front[i][k]) below = std::max(below, q[k]);
          if (q[k] > front[i][k]) above = std::min(above, q[k]);
        }
        if (front[i][k] == lo || front[i][k] == hi)
          extreme = true;
        else
          expected += (above - below) / (hi - lo);
      }
      if (extreme)
        CHECK(std::isinf(d[i]));
      else
        CHECK(d[i] == doctest::Approx(expected));
    }
  }
}

TEST_CASE(
    "crowding distance: a loss equal for every point crowds no one, infinite losses keep the "
    "finite gaps") {
  // The third loss is the same everywhere: the ends of the first two alone
  // are extreme (Optuna 5.0: {inf, inf, 1.45, 0.55, inf}).
  const auto flat = crowding_distance({{2.9, 1.1, 5}, {0, 4, 5}, {1, 3, 5}, {3, 1, 5}, {4, 0, 5}});
  CHECK(flat[0] == doctest::Approx(1.0));
  CHECK(std::isinf(flat[1]));
  CHECK(flat[2] == doctest::Approx(1.45));
  CHECK(flat[3] == doctest::Approx(0.55));
  CHECK(std::isinf(flat[4]));
  // An infinite loss: the width is the finite range, 3 - 1 and 9 - 1 (Optuna
  // 5.0: {inf, inf, 1.25, inf}).
  const double inf = std::numeric_limits<double>::infinity();
  const auto with_inf = crowding_distance({{-inf, 9}, {1, 3}, {2, 2}, {3, 1}});
  CHECK(std::isinf(with_inf[0]));
  CHECK(std::isinf(with_inf[1]));
  CHECK(with_inf[2] == doctest::Approx((3.0 - 1.0) / 2.0 + (3.0 - 1.0) / 8.0));
  CHECK(std::isinf(with_inf[3]));
  // Two points at the same infinity are no gap to each other: the last one's
  // distance is its second loss's alone (Optuna 5.0: {inf, 1.0, inf}).
  const auto two_inf = crowding_distance({{inf, 0}, {inf, 1}, {0, 2}});
  CHECK(std::isinf(two_inf[0]));
  CHECK(two_inf[1] == doctest::Approx(1.0));
  CHECK(std::isinf(two_inf[2]));
}

}  // namespace
}  // namespace hpo
