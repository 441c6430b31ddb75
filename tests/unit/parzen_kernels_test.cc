// The kernel families (samplers/kernels/): each kernel is a distribution,
// and the pooled one-dimension densities, the mixture's shortcut, agree
// with the sum over kernels.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "samplers/kernels/categorical.h"
#include "samplers/kernels/discrete.h"

namespace hpo {
namespace {

TEST_CASE("categorical kernels: each a distribution, pooled as their sum") {
  for (const double aitchison : {0.0, 0.2}) {
    CategoricalKernels kernels;
    kernels.fit(4, (Eigen::ArrayXd(4) << 0, 2, 2, 3).finished(), true, 1.0, aitchison);
    const Eigen::ArrayXd w = (Eigen::ArrayXd(5) << 0.1, 0.2, 0.3, 0.15, 0.25).finished();
    const Eigen::ArrayXd x = (Eigen::ArrayXd(4) << 0, 1, 2, 3).finished();
    const Eigen::ArrayXd pooled = kernels.log_pdf(w, x);
    for (Eigen::Index k = 0; k < w.size(); ++k) {
      double mass = 0;
      for (int c = 0; c < 4; ++c) mass += std::exp(kernels.log_term(k, c));
      CHECK(mass == doctest::Approx(1.0));
    }
    for (Eigen::Index c = 0; c < x.size(); ++c) {
      double sum = 0;
      for (Eigen::Index k = 0; k < w.size(); ++k) sum += w(k) * std::exp(kernels.log_term(k, x(c)));
      CHECK(pooled(c) == doctest::Approx(std::log(sum)));
    }
  }
}

TEST_CASE("grid kernels: cell masses sum to one, pooled weights per group") {
  const KernelDim grid{false, 0, -0.5, 4.5, 1.0};  // points 0..4
  const Eigen::ArrayXd mus =
      (Eigen::ArrayXd(4) << 1, 1, 4, 2).finished();  // the last: the prior at the middle
  const Eigen::ArrayXd sigmas = (Eigen::ArrayXd(4) << 0.5, 0.5, 1.0, 5.0).finished();
  GridKernels kernels;
  kernels.fit_slots(mus, grid);
  kernels.group_kernels(mus, sigmas, grid);
  CHECK(kernels.group_mu.size() == 3);  // the two kernels at 1 share a group
  const Eigen::ArrayXd x = (Eigen::ArrayXd(5) << 0, 1, 2, 3, 4).finished();
  const GridTable table = kernels.table(grid, x);
  for (Eigen::Index k = 0; k < mus.size(); ++k) {
    double mass = 0;
    for (Eigen::Index c = 0; c < x.size(); ++c) mass += std::exp(table.at(kernels.group(k), c));
    CHECK(mass == doctest::Approx(1.0));
  }
  const Eigen::ArrayXd w = (Eigen::ArrayXd(4) << 0.1, 0.2, 0.3, 0.4).finished();
  const Eigen::ArrayXd pooled = kernels.pooled_log_weights(w);
  for (Eigen::Index c = 0; c < x.size(); ++c) {
    double by_kernel = 0, by_group = 0;
    for (Eigen::Index k = 0; k < w.size(); ++k)
      by_kernel += w(k) * std::exp(table.at(kernels.group(k), c));
    for (Eigen::Index g = 0; g < pooled.size(); ++g)
      by_group += std::exp(pooled(g) + table.log_mass(g, table.value_of[static_cast<size_t>(c)]));
    CHECK(by_group == doctest::Approx(by_kernel));
  }
}

TEST_CASE("sorted_by_value: by mean, ties by index, with or without grid slots") {
  const KernelDim grid{false, 0, -0.5, 4.5, 1.0};
  const Eigen::ArrayXd mus = (Eigen::ArrayXd(7) << 3, 1, 3, 0, 2, 1, 4).finished();
  std::vector<int> expected(static_cast<size_t>(mus.size()));
  std::iota(expected.begin(), expected.end(), 0);
  std::stable_sort(expected.begin(), expected.end(), [&](int a, int b) { return mus(a) < mus(b); });
  GridKernels kernels;
  kernels.fit_slots(mus, grid);
  CHECK(kernels.slot.size() == mus.size());
  CHECK(sorted_by_value(mus, kernels.slot, kernels.n_slots) == expected);
  CHECK(sorted_by_value(mus, Eigen::ArrayXi(), 0) == expected);
}

}  // namespace
}  // namespace hpo
