#include "trainer/block_plan.h"

#include <algorithm>

namespace hpo::trainer {

std::vector<BlockPlan> plan_blocks(int64_t layers, int64_t kernel, int64_t lookback) {
  std::vector<BlockPlan> plans(static_cast<size_t>(layers));
  int64_t out_count = 1;  // the head reads the last step only
  for (int64_t b = layers - 1; b >= 0; --b) {
    const int64_t dilation = int64_t(1) << b;
    const int64_t available = (lookback - 1) / dilation + 1;  // steps >= 0 spaced by the dilation
    BlockPlan& p = plans[size_t(b)];
    p.out_count = out_count;
    p.out_stride = b == layers - 1 ? 1 : 2;
    p.mid_count = std::min((out_count - 1) * p.out_stride + kernel, available);
    out_count = std::min(p.mid_count + kernel - 1, available);  // what this block reads
  }
  return plans;
}

}  // namespace hpo::trainer
