#include "samplers/truncnorm.h"

#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <utility>

namespace hpo {
namespace {

using namespace truncnorm;

// Reference values from mpmath at 30 digits.
TEST_CASE("normal CDF and its log, far into the tails") {
  CHECK(ndtr(1.96) == doctest::Approx(0.975002104851779563787).epsilon(1e-15));
  CHECK(log_ndtr(-5.0) == doctest::Approx(-15.0649983939887257360).epsilon(1e-13));
  CHECK(log_ndtr(-30.0) == doctest::Approx(-454.321243956343197107).epsilon(1e-12));
  CHECK(log_ndtr(-1e5) == doctest::Approx(-5e9 - std::log(1e5) - kLogSqrt2Pi).epsilon(1e-12));
  CHECK(log_ndtr(40.0) == 0.0);  // exp(-800): below double precision
}

TEST_CASE("log mass of an interval, in the body and in both tails") {
  CHECK(std::exp(log_gauss_mass(-1, 1)) == doctest::Approx(0.682689492137085897).epsilon(1e-14));
  // Mirror images have the same mass; 7..8 cancels to 0 if done naively.
  CHECK(log_gauss_mass(7, 8) == doctest::Approx(-27.3847937007199408021).epsilon(1e-12));
  CHECK(log_gauss_mass(-8, -7) == doctest::Approx(-27.3847937007199408021).epsilon(1e-12));
  CHECK(std::isinf(log_gauss_mass(0.5, 0.5)));
  CHECK(log_gauss_mass(-INFINITY, INFINITY) == doctest::Approx(0.0));
}

TEST_CASE("quantile inverts the CDF") {
  for (double p : {1e-300, 1e-20, 1e-5, 0.01, 0.3, 0.5, 0.77, 0.999, 1 - 1e-12}) {
    CHECK(ndtr(ndtri(p)) == doctest::Approx(p).epsilon(1e-12));
  }
  CHECK(ndtri(0.025) == doctest::Approx(-1.959963984540054).epsilon(1e-14));
}

TEST_CASE("truncated draws stay inside and follow the truncated CDF") {
  // u maps through the CDF, so the median of N(0,1) on [1, 3] is where
  // Phi(x) = (Phi(1) + Phi(3)) / 2.
  const double median = sample(1, 3, 0.5);
  CHECK(ndtr(median) == doctest::Approx((ndtr(1) + ndtr(3)) / 2).epsilon(1e-12));
  for (double u : {0.0, 1e-9, 0.25, 0.5, 0.999999}) {
    for (auto [a, b] :
         {std::pair{-1.0, 1.0}, {5.0, 6.0}, {-40.0, -39.0}, {30.0, 31.0}, {-0.1, 50.0}}) {
      const double x = sample(a, b, u);
      CHECK(x >= a);
      CHECK(x <= b);
    }
  }
}

TEST_CASE("truncated log density by hand") {
  // On [0, 2]: phi(0.5) / (Phi(2) - Phi(0)).
  const double by_hand = std::log(std::exp(-0.125) / std::sqrt(2 * M_PI) / (ndtr(2) - 0.5));
  CHECK(log_pdf(0.5, 0, 2) == doctest::Approx(by_hand).epsilon(1e-14));
  CHECK(std::isinf(log_pdf(2.5, 0, 2)));
}

}  // namespace
}  // namespace hpo
