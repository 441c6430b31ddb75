#include "hpo/analysis/fanova.h"

#include <doctest/doctest.h>

#include <random>
#include <stdexcept>

#include "hpo/analysis/random_forest.h"

namespace hpo {
namespace {

// n points uniform on [0,1]^d, and f at each.
template <typename F>
void sample(int n, int d, F f, std::vector<std::vector<double>>& x, std::vector<double>& y) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < n; ++i) {
    std::vector<double> row(d);
    for (auto& v : row) v = u(rng);
    y.push_back(f(row));
    x.push_back(row);
  }
}

std::vector<FeatureDomain> unit_cube(int d) {
  std::vector<FeatureDomain> domains;
  for (int i = 0; i < d; ++i) domains.push_back({"x" + std::to_string(i), 0, 1});
  return domains;
}

double importance_of(const std::vector<Importance>& imps, const std::string& name) {
  for (const auto& i : imps) {
    if (i.name == name) return i.importance;
  }
  FAIL("no importance for " << name);
  return -1;
}

TEST_CASE("random forest: a tree fits its sample, leaves are means") {
  const std::vector<std::vector<double>> x = {{0}, {1}, {2}, {3}};
  const std::vector<double> y = {1, 1, 5, 5};
  ForestOptions o;
  o.trees = 1;
  const auto forest = fit_random_forest(x, y, o);
  REQUIRE(forest.size() == 1);
  for (size_t i = 0; i < x.size(); ++i) {
    const double p = forest[0].predict(x[i]);
    CHECK((p == doctest::Approx(1) || p == doctest::Approx(5)));
  }
  CHECK_THROWS_AS(fit_random_forest({}, {}, o), std::invalid_argument);
}

TEST_CASE("fANOVA on one tree: the exact variance shares of an additive step function") {
  // f = 4 [x0 > 0.5] + 2 [x1 > 0.5] on [0,1]^2: variances 4 and 1 (no
  // interaction), so 0.8 and 0.2 of the total of 5.
  RegressionTree t;
  t.nodes = {{0, 0.5, 1, 2, 0},  {1, 0.5, 3, 4, 0},  {1, 0.5, 5, 6, 0}, {-1, 0, -1, -1, 0},
             {-1, 0, -1, -1, 2}, {-1, 0, -1, -1, 4}, {-1, 0, -1, -1, 6}};
  const auto fr = tree_variance_fractions(t, unit_cube(2));
  CHECK(fr[0] == doctest::Approx(0.8));
  CHECK(fr[1] == doctest::Approx(0.2));
  // A pure interaction (x0 XOR x1) has no first-order share at all.
  t.nodes[3].value = 0, t.nodes[4].value = 1, t.nodes[5].value = 1, t.nodes[6].value = 0;
  const auto xor_fr = tree_variance_fractions(t, unit_cube(2));
  CHECK(xor_fr[0] == doctest::Approx(0));
  CHECK(xor_fr[1] == doctest::Approx(0));
}

TEST_CASE("fANOVA on a forest: f = x0 + 2 x1 gives x1 four times x0's variance, x2 none") {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  sample(
      400, 3, [](const std::vector<double>& r) { return r[0] + 2 * r[1]; }, x, y);
  const auto imps = fanova_importances(unit_cube(3), x, y);
  CHECK(imps[0].name == "x1");
  CHECK(importance_of(imps, "x1") == doctest::Approx(0.8).epsilon(0.08));
  CHECK(importance_of(imps, "x0") == doctest::Approx(0.2).epsilon(0.3));
  CHECK(importance_of(imps, "x2") < 0.03);
  double sum = 0;
  for (const auto& i : imps) sum += i.importance;
  CHECK(sum == doctest::Approx(1));
}

TEST_CASE("fANOVA: a constant objective ranks nothing") {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  sample(
      20, 2, [](const std::vector<double>&) { return 3.0; }, x, y);
  for (const auto& i : fanova_importances(unit_cube(2), x, y)) CHECK(i.importance == 0);
}

}  // namespace
}  // namespace hpo
