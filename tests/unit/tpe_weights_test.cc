#include "samplers/tpe_weights.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

namespace hpo {
namespace {

TEST_CASE("expected-improvement weights: the improvement over the threshold") {
  Eigen::ArrayXd losses(3);
  losses << 1.0, 0.25, 2.0;
  const auto w = improvement_weights(losses, 2.5);
  CHECK(w(0) == doctest::Approx(1.5));
  CHECK(w(1) == doctest::Approx(2.25));
  CHECK(w(2) == doctest::Approx(0.5));
  // A tie with the threshold still counts, barely.
  CHECK(improvement_weights(losses, 2.0)(2) == 1e-12);
}

TEST_CASE("expected-improvement weights fall back to uniform without a threshold or a loss") {
  Eigen::ArrayXd losses(2);
  losses << 1.0, 3.0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK((improvement_weights(losses, nan) == 1.0).all());
  CHECK((improvement_weights(losses, INFINITY) == 1.0).all());
  losses(1) = nan;  // a pruned trial among the good ones
  CHECK((improvement_weights(losses, 5.0) == 1.0).all());
  CHECK(improvement_weights(Eigen::ArrayXd(0), 1.0).size() == 0);
}

}  // namespace
}  // namespace hpo
