#include <doctest/doctest.h>

#include "samplers/bounded_minimize.h"

namespace hpo {
namespace {

TEST_CASE("gp: L-BFGS-B keeps every evaluated point within the bounds") {
  // (x0 - 3)^2 + (x1 + 2)^2 + x0 x1 / 2: the free minimum lies outside [0, 1]^2.
  bool inside = true;
  const Objective f = [&](const Eigen::VectorXd& x, Eigen::VectorXd& g) {
    inside = inside && (x.array() >= 0).all() && (x.array() <= 1).all();
    g[0] = 2 * (x[0] - 3) + x[1] / 2;
    g[1] = 2 * (x[1] + 2) + x[0] / 2;
    return (x[0] - 3) * (x[0] - 3) + (x[1] + 2) * (x[1] + 2) + x[0] * x[1] / 2;
  };
  Eigen::VectorXd x(2);
  x << 0.5, 0.5;
  const double value =
      bounded_minimize(f, x, Eigen::VectorXd::Zero(2), Eigen::VectorXd::Ones(2), 50);
  CHECK(inside);
  CHECK(x[0] == doctest::Approx(1.0));
  CHECK(x[1] == doctest::Approx(0.0));
  CHECK(value == doctest::Approx(8.0));
}

TEST_CASE("gp: an interior minimum is found and a start outside is projected") {
  const Objective f = [](const Eigen::VectorXd& x, Eigen::VectorXd& g) {
    g = 2 * (x.array() - 0.3).matrix();
    return (x.array() - 0.3).square().sum();
  };
  Eigen::VectorXd x = Eigen::VectorXd::Constant(3, 7.0);
  bounded_minimize(f, x, Eigen::VectorXd::Zero(3), Eigen::VectorXd::Ones(3), 50);
  for (Eigen::Index i = 0; i < 3; ++i) CHECK(x[i] == doctest::Approx(0.3).epsilon(1e-4));
}

}  // namespace
}  // namespace hpo
