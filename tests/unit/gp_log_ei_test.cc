#include <doctest/doctest.h>

#include <cmath>

#include "samplers/log_ei.h"

namespace hpo {
namespace {

// Reference values of log h(z) = log(phi(z) + z Phi(z)) and of
// d log h / dz = Phi(z) / h(z), computed with mpmath 1.2.1 at 60 digits:
//   /usr/bin/python3 -c 'import mpmath as mp; mp.mp.dps = 60; z = mp.mpf(-40);
//     h = mp.npdf(z) + z * mp.ncdf(z); print(mp.log(h), mp.ncdf(z) / h)'
// (z as written below; -1e8 as mp.mpf(-100000000)).
struct Reference {
  double z, log_h, d_log_h;
};
const Reference kReferences[] = {
    {3, 1.0987396653277077727, 0.33284096845179523558},
    {0.5, -0.35982768374506381859, 0.99092271800410996015},
    {0, -0.91893853320467274178, 1.2533141373155002512},
    {-0.5, -1.6205162643873199193, 1.5598731483480796712},
    {-1, -2.4851210257126413368, 1.9042712333296918229},
    {-1.5, -3.5299359208057098515, 2.2795806941564461644},
    {-3, -7.8696860596030285171, 3.5323375176251605167},
    {-5, -16.744301162660990143, 5.3618162412880885298},
    {-10, -55.553122036122355927, 10.194383033412553306},
    {-20, -206.91783850942509785, 20.099262811101281775},
    {-29.9, -454.7229981194962739, 29.966666911139964664},
    {-30.1, -460.73628739874303834, 30.166226849616996054},
    {-40, -808.29856835661996024, 40.049906657648518193},
    {-100, -5010.1295788002497923, 100.01999400419586505},
    {-1e3, -500014.73445209115845, 1000.001999994000042},
    {-1e5, -5000000023.9447894634, 100000.00001999999999},
    {-1e8, -5000000000000037.7603, 100000000.00000002},
};

TEST_CASE("gp: log h matches a 60-digit reference from z = 3 to z = -1e8") {
  for (const auto& r : kReferences) {
    CAPTURE(r.z);
    // Absolute 1e-9 checks the tail factor log(h / phi) (about -2 log|z|)
    // to 9 digits even where log phi is huge; beyond, double's own spacing.
    const double tolerance = std::max(1e-9, 1e-14 * std::abs(r.log_h));
    CHECK(std::abs(log_h(r.z) - r.log_h) <= tolerance);
    CHECK(d_log_h(r.z) == doctest::Approx(r.d_log_h).epsilon(1e-9));
  }
}

TEST_CASE("gp: the naive log EI underflows where log h stays finite and monotone") {
  const double z = -40;
  const double naive = std::log(std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI) +
                                z * 0.5 * std::erfc(-z / std::sqrt(2.0)));
  CHECK(!std::isfinite(naive));
  double previous = log_h(-1e6);
  for (double x = -1e6; x < 5; x = x < -2 ? x / 1.5 : x + 0.25) {
    const double v = log_h(x);
    CHECK(std::isfinite(v));
    CHECK(v >= previous);
    previous = v;
  }
}

TEST_CASE("gp: the Mills ratio is exact on both sides of where the series takes over") {
  // mpmath at 40 digits: erfc(x / sqrt(2)) / 2 / npdf(x).
  CHECK(mills_ratio(30 - 1e-9) == doctest::Approx(0.033296419073604641298617781665).epsilon(1e-13));
  CHECK(mills_ratio(30) == doctest::Approx(0.033296419072497213381868401852).epsilon(1e-13));
  CHECK(mills_ratio(5) == doctest::Approx(0.19280810471531576487746572791).epsilon(1e-13));
  // R(x) -> 1/x: for x = 1e4, R = (1 - 1e-8 + 3e-16) / 1e4.
  CHECK(mills_ratio(1e4) == doctest::Approx((1 - 1e-8) / 1e4).epsilon(1e-14));
}

}  // namespace
}  // namespace hpo
