#include "samplers/kernel_width.h"

#include <doctest/doctest.h>

#include <cmath>

namespace hpo {
namespace {

Eigen::ArrayXd values(std::initializer_list<double> v) {
  Eigen::ArrayXd a(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double x : v) a(i++) = x;
  return a;
}

TEST_CASE("Scott's rule, by hand: the smaller of the spread and the IQR decides") {
  // 0, 1, 2, 3, 4: std (n - 1) = sqrt(2.5) = 1.581; quartiles 1 and 3, so
  // IQR / 1.34 = 1.493 is the smaller.
  const double iqr_rule = 1.059 * (2.0 / 1.34) * std::pow(5.0, -0.2);
  CHECK(scott_bandwidth(values({4, 0, 3, 1, 2})) == doctest::Approx(iqr_rule));
  // 0, 0, 0, 10: quartiles interpolate to 0 and 2.5 (IQR / 1.34 = 1.866),
  // std = 5: the IQR again; one outlier does not widen every kernel.
  CHECK(scott_bandwidth(values({0, 0, 10, 0})) ==
        doctest::Approx(1.059 * 2.5 / 1.34 * std::pow(4.0, -0.2)));
  // 0, 0.1, 0.9, 1: IQR 0.85 (/1.34 = 0.634) against std 0.523: the std.
  const double sd = std::sqrt((2 * 0.25 + 2 * 0.16) / 3);
  CHECK(scott_bandwidth(values({0, 0.1, 0.9, 1})) ==
        doctest::Approx(1.059 * sd * std::pow(4.0, -0.2)));
  // Nothing to spread: 0, and the magic clip sets the width.
  CHECK(scott_bandwidth(values({0.3})) == 0.0);
  CHECK(scott_bandwidth(values({0.3, 0.3, 0.3})) == 0.0);
}

TEST_CASE("the magic clip's floor: Optuna's bit for bit, and the paper's exponent") {
  for (int n : {1, 2, 5, 50, 99, 100, 500}) {
    CHECK(magic_min_bandwidth(3.7, n, 0.01, 1.0) == 3.7 / std::min(100.0, 1.0 + n));
  }
  // Exponent 2: the floor falls as 1 / (n + 1)^2 until it meets the factor.
  CHECK(magic_min_bandwidth(1.0, 1, 0.03, 2.0) == doctest::Approx(0.25));
  CHECK(magic_min_bandwidth(1.0, 4, 0.03, 2.0) == doctest::Approx(0.04));
  CHECK(magic_min_bandwidth(2.0, 5, 0.03, 2.0) == doctest::Approx(0.06));  // 1/36 < 0.03
  CHECK(magic_min_bandwidth(2.0, 80, 0.03, 2.0) == doctest::Approx(0.06));
}

}  // namespace
}  // namespace hpo
