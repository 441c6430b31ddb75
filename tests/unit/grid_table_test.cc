// A grid's cell masses, precomputed per group and grid point and taken
// over from an earlier fit, must be those computed for each candidate:
// TPE's pinned suggestions depend on every bit of them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "samplers/kernels/discrete.h"
#include "samplers/same_bits.h"
#include "samplers/truncnorm.h"

namespace hpo {
namespace {

// The log mass of x's cell under group g, computed for x alone.
double direct(const GridKernels& grid, const KernelDim& space, double x, Eigen::Index g) {
  const double lo = std::max(x - 0.5 * space.q, space.low);
  const double hi = std::min(x + 0.5 * space.q, space.high);
  const double mu = grid.group_mu(g), s = grid.group_sigma(g);
  return truncnorm::log_gauss_mass((lo - mu) / s, (hi - mu) / s) - grid.group_log_mass(g);
}

GridKernels fitted(const Eigen::ArrayXd& mus, const Eigen::ArrayXd& sigmas, const KernelDim& space,
                   const GridKernels* before) {
  GridKernels grid;
  grid.fit_slots(mus, space);
  grid.group_kernels(mus, sigmas, space, before);
  return grid;
}

TEST_CASE("grid tables: precomputed and reused cell masses equal those computed per candidate") {
  std::mt19937_64 rng(3);
  const std::vector<KernelDim> spaces = {
      {false, 0, -0.5, 3.5, 1.0},  // ordered choices
      {false, 0, -0.05, 1.05, 0.1},  // a stepped float: points off binary fractions
      {false, 0, 0.5, 40.5, 1.0},  // past kPrecomputedPoints: nothing precomputed
  };
  int checked = 0;
  for (const auto& space : spaces) {
    const int points = static_cast<int>(std::round((space.high - space.low) / space.q));
    std::uniform_int_distribution<int> pick(0, points - 1), width(1, 4);
    Eigen::ArrayXd mus(60), sigmas(60);
    for (Eigen::Index k = 0; k < mus.size(); ++k) {
      mus(k) = space.low + 0.5 * space.q + pick(rng) * space.q;
      sigmas(k) = 0.3 * space.q * width(rng);
    }
    const GridKernels first = fitted(mus.head(40), sigmas.head(40), space, nullptr);
    CHECK((first.point_log_mass.size() > 0) == (points <= GridKernels::kPrecomputedPoints));
    // One more kernel, and a few with new bandwidths: most groups stay.
    for (int more : {41, 50, 60}) {
      Eigen::ArrayXd s = sigmas.head(more);
      s(0) *= 1.5;
      const GridKernels fresh = fitted(mus.head(more), s, space, nullptr);
      const GridKernels reused = fitted(mus.head(more), s, space, &first);
      CHECK(same_bits(fresh.point_log_mass, reused.point_log_mass));
      // Candidates on the points, computed as samplers snap them (from the
      // index), and beside them by a rounding.
      Eigen::ArrayXd x(2 * points);
      for (int i = 0; i < points; ++i) {
        x(i) = space.low + (i + 0.5) * space.q;
        x(points + i) = std::nextafter(x(i), 1e9);
      }
      for (const GridKernels* grid : {&fresh, &reused}) {
        const GridTable t = grid->table(space, x);
        for (Eigen::Index c = 0; c < x.size(); ++c) {
          for (Eigen::Index g = 0; g < grid->group_mu.size(); ++g) {
            const double want = direct(*grid, space, x(c), g);
            CHECK(std::memcmp(&want, &t.log_mass(g, t.value_of[static_cast<size_t>(c)]),
                              sizeof(double)) == 0);
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked > 1000);
}

}  // namespace
}  // namespace hpo
