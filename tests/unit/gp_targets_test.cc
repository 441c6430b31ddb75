#include "samplers/gp_targets.h"

#include <doctest/doctest.h>

#include <cmath>

namespace hpo {
namespace {

Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double x : v) out[i++] = x;
  return out;
}

TEST_CASE("gp: Yeo-Johnson is the identity at lambda 1 and continuous at 0 and 2") {
  for (double y : {-3.0, -0.5, 0.0, 0.7, 12.0}) {
    CHECK(yeo_johnson(y, 1.0) == doctest::Approx(y));
    CHECK(yeo_johnson(y, 1e-7) == doctest::Approx(yeo_johnson(y, 0.0)).epsilon(1e-5));
    CHECK(yeo_johnson(y, 2.0 - 1e-7) == doctest::Approx(yeo_johnson(y, 2.0)).epsilon(1e-5));
  }
}

TEST_CASE("gp: targets keep the order, with mean 0 and standard deviation 1") {
  const Eigen::VectorXd values = vec({3.0, -1.0, 250.0, 0.5, 2.0, -40.0, 7.0});
  const Eigen::VectorXd t = gp_targets(values);
  CHECK(std::abs(t.mean()) < 1e-12);
  CHECK(std::sqrt(t.squaredNorm() / static_cast<double>(t.size())) == doctest::Approx(1.0));
  for (Eigen::Index i = 0; i < t.size(); ++i) {
    for (Eigen::Index j = 0; j < t.size(); ++j) {
      if (values[i] < values[j]) CHECK(t[i] < t[j]);
    }
  }
}

TEST_CASE("gp: a few diverged runs do not squeeze the good values together") {
  // Losses to minimize (signed: larger is better): seven good runs within a
  // factor of 10 of each other, two that diverged. Standardized as they
  // are, the good ones differ by ~1e-6 standard deviations.
  const Eigen::VectorXd values = -vec({1e-4, 2e-4, 3e-4, 4e-4, 5e-4, 7e-4, 1e-3, 10.0, 1000.0});
  const Eigen::VectorXd plain = standardize(values), t = gp_targets(values);
  CAPTURE(plain.transpose());
  CAPTURE(t.transpose());
  CHECK(plain[0] - plain[6] < 1e-5);
  CHECK(t[0] - t[6] > 0.05);  // the best is told apart from the seventh
}

TEST_CASE("gp: values that already look normal are left nearly as they are") {
  const Eigen::VectorXd values = vec({-1.6, -0.9, -0.5, -0.2, 0.0, 0.1, 0.4, 0.6, 1.1, 1.7});
  const Eigen::VectorXd plain = standardize(values), t = gp_targets(values);
  CHECK((t - plain).cwiseAbs().maxCoeff() < 0.1);
}

TEST_CASE("gp: targets of fewer than 3 or constant values are plainly standardized") {
  CHECK(gp_targets(vec({2.0, 5.0})) == standardize(vec({2.0, 5.0})));
  CHECK(gp_targets(vec({4.0, 4.0, 4.0, 4.0})).cwiseAbs().maxCoeff() == 0.0);
}

}  // namespace
}  // namespace hpo
