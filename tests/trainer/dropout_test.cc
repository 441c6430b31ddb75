#include "trainer/dropout.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

namespace hpo::trainer {
namespace {

// |observed - expected| within 5 standard deviations of a binomial count.
bool near_binomial(double count, double n, double prob) {
  return std::abs(count - n * prob) <= 5 * std::sqrt(n * prob * (1 - prob));
}

TEST_CASE("dropout mask: kept with probability 1 - p, independently, scaled by 1 / (1 - p)") {
  const size_t n = 1000001;  // odd: the last element comes from a draw of its own
  for (double p : {0.1, 0.5, 0.9}) {
    CAPTURE(p);
    std::vector<float> mask(n, -1.0f);
    fill_dropout_mask(mask.data(), n, p, 42);
    const float scale = float(1.0 / (1.0 - p));
    double kept = 0, both = 0, kept_even = 0;
    bool values_ok = true;
    for (size_t i = 0; i < n; ++i) {
      values_ok = values_ok && (mask[i] == 0.0f || mask[i] == scale);
      kept += mask[i] != 0;
      if (i % 2 == 0) kept_even += mask[i] != 0;
      // Neighbours share a 64-bit draw (even i) or not (odd i): neither may correlate.
      if (i + 1 < n) both += mask[i] != 0 && mask[i + 1] != 0;
    }
    CHECK(values_ok);
    CHECK(near_binomial(kept, double(n), 1 - p));
    CHECK(near_binomial(kept_even, double((n + 1) / 2), 1 - p));
    CHECK(near_binomial(both, double(n - 1), (1 - p) * (1 - p)));
  }
}

TEST_CASE("dropout mask: the seed alone fixes it") {
  std::vector<float> a(1001), b(1001), c(1001);
  fill_dropout_mask(a.data(), a.size(), 0.3, 7);
  fill_dropout_mask(b.data(), b.size(), 0.3, 7);
  fill_dropout_mask(c.data(), c.size(), 0.3, 8);
  CHECK(a == b);
  CHECK(a != c);
}

TEST_CASE("FastDropout: LibTorch dropout's function, its masks fixed by torch's seed") {
  FastDropout drop(0.25);
  const torch::Tensor x =
      (torch::rand({64, 8, 1, 20}) + 0.5).contiguous(torch::MemoryFormat::ChannelsLast);
  drop->eval();
  CHECK(torch::equal(drop(x), x));
  drop->train();
  torch::manual_seed(3);
  const torch::Tensor y = drop(x), again = drop(x);
  CHECK(y.is_contiguous(torch::MemoryFormat::ChannelsLast));  // the layout is kept
  const torch::Tensor kept = y != 0;
  CHECK(torch::allclose(y.masked_select(kept), x.masked_select(kept) / 0.75));
  CHECK(near_binomial(kept.sum().item<double>(), double(x.numel()), 0.75));
  CHECK_FALSE(torch::equal(y, again));  // a fresh mask per call
  torch::manual_seed(3);
  CHECK(torch::equal(drop(x), y));  // the same seed, the same masks
  // The gradient flows through the kept elements only, scaled alike.
  const torch::Tensor w = x.clone().requires_grad_(true);
  torch::manual_seed(3);
  drop(w).sum().backward();
  CHECK(torch::allclose(w.grad(), (y != 0).to(torch::kFloat32) / 0.75));
}

}  // namespace
}  // namespace hpo::trainer
