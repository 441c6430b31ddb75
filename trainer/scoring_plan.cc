#include "trainer/scoring_plan.h"

#include <algorithm>

namespace hpo::trainer {

namespace {

// Steps whose receptive field reaches past the window's first day: a prefix,
// since older steps reach further back. Unshared, every step.
int64_t own_steps(const LayerSteps& s, int64_t lookback, bool shared) {
  if (!shared) return s.count;
  int64_t n = 0;
  while (n < s.count && s.days_back(n) + s.field > lookback) ++n;
  return n;
}

}  // namespace

ScoringPlan plan_scoring(int64_t layers, int64_t kernel, int64_t lookback, int64_t shared_blocks) {
  ScoringPlan plan;
  plan.kernel = kernel;
  plan.lookback = lookback;
  plan.blocks = plan_blocks(layers, kernel, lookback);
  plan.input = LayerSteps{1, lookback, 1, 0, 0};
  const LayerSteps* in = &plan.input;
  for (int64_t b = 0; b < layers; ++b) {
    const BlockPlan& p = plan.blocks[size_t(b)];
    const int64_t dilation = int64_t(1) << b, reach = (kernel - 1) * dilation;
    plan.mid.push_back(LayerSteps{dilation, p.mid_count, in->field + reach, 0, 0});
    plan.out.push_back(
        LayerSteps{p.out_stride * dilation, p.out_count, in->field + 2 * reach, 0, 0});
    in = &plan.out.back();
  }
  // From the head down: what each activation's consumers read. The head
  // reads the top block's last (only) step.
  plan.out.back().kept = plan.out.back().count;
  for (int64_t b = layers - 1; b >= 0; --b) {
    const BlockPlan& p = plan.blocks[size_t(b)];
    LayerSteps& in_steps = b == 0 ? plan.input : plan.out[size_t(b - 1)];
    LayerSteps& mid = plan.mid[size_t(b)];
    LayerSteps& out = plan.out[size_t(b)];
    const bool shared = b < shared_blocks;
    out.own = std::min(own_steps(out, lookback, shared), out.kept);
    // Each activation read at all keeps at least one step, even where the
    // steps read are all padding, which is made from it.
    if (out.own > 0) {
      // The second convolution's own outputs read the first's (padded on the
      // left, as WeightNormConv1d pads them) from its start...
      const int64_t end = plan.out_first(size_t(b)) + (out.own - 1) * p.out_stride + kernel;
      mid.kept = std::max(mid.kept, std::clamp(end, int64_t(1), mid.count));
      // ...and the residual reads the block's input at the same days.
      in_steps.kept =
          std::max(in_steps.kept, plan.skip_first(size_t(b)) + (out.own - 1) * p.out_stride + 1);
    }
    mid.own = std::min(own_steps(mid, lookback, shared), mid.kept);
    if (mid.own > 0) {
      const int64_t end = plan.mid_first(size_t(b)) + mid.own - 1 + kernel;
      in_steps.kept = std::max(in_steps.kept, std::clamp(end, int64_t(1), in_steps.count));
    }
  }
  for (int64_t b = 0; b < layers; ++b) {
    const LayerSteps &mid = plan.mid[size_t(b)], &out = plan.out[size_t(b)];
    if (mid.kept > mid.own || out.kept > out.own) plan.series_blocks = b + 1;
  }
  return plan;
}

int64_t ScoringPlan::mid_first(size_t b) const {
  const int64_t in = b == 0 ? input.count : out[b - 1].count;
  return in - (blocks[b].mid_count - 1 + kernel);
}

int64_t ScoringPlan::out_first(size_t b) const {
  const BlockPlan& p = blocks[b];
  return p.mid_count - ((p.out_count - 1) * p.out_stride + kernel);
}

int64_t ScoringPlan::skip_first(size_t b) const {
  const int64_t in = b == 0 ? input.count : out[b - 1].count;
  return in - 1 - (blocks[b].out_count - 1) * blocks[b].out_stride;
}

namespace {

// Multiply-adds of block b's two convolutions and residual for `mid` and
// `out` output steps.
int64_t block_macs(int64_t b, int64_t features, int64_t hidden, int64_t kernel, int64_t mid,
                   int64_t out) {
  const int64_t in = b == 0 ? features : hidden;
  const int64_t downsample = in != hidden ? out * in * hidden : 0;
  return mid * in * hidden * kernel + out * hidden * hidden * kernel + downsample;
}

}  // namespace

int64_t ScoringPlan::own_macs(int64_t features, int64_t hidden) const {
  int64_t macs = hidden;
  for (size_t b = 0; b < blocks.size(); ++b)
    macs += block_macs(int64_t(b), features, hidden, kernel, mid[b].own, out[b].own);
  return macs;
}

int64_t ScoringPlan::series_macs_per_day(int64_t features, int64_t hidden) const {
  int64_t macs = 0;
  for (int64_t b = 0; b < series_blocks; ++b) macs += block_macs(b, features, hidden, kernel, 1, 1);
  return macs;
}

}  // namespace hpo::trainer
