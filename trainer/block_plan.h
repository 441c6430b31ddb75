// Which time steps of each TCN block reach the head (models.h). Without
// LibTorch, so that the plans of scoring (scoring_plan.h) compile fast.
#ifndef HPO_TRAINER_BLOCK_PLAN_H_
#define HPO_TRAINER_BLOCK_PLAN_H_

#include <cstdint>
#include <vector>

namespace hpo::trainer {

// Only the last time step of the top block reaches the head, so the TCN
// computes only the time steps that feed it. A dilated layer's inputs are then
// an arithmetic progression of time steps spaced by its dilation; stored
// compactly (only those steps, ending at the last one), its dilated
// convolution becomes a plain one, with stride 2 where the layer above needs
// every other step. This is the same function as the full-sequence TCN
// (tests/trainer/models_test.cc checks), with less than half the work.
struct BlockPlan {
  int64_t out_count;  // time steps this block outputs (the last ones, spaced by 2 * dilation)
  int64_t out_stride;  // spacing of those steps in units of the dilation: 2, or 1 for the top block
  int64_t mid_count;  // time steps of the first convolution's output (spaced by the dilation)
};

// The plans of `layers` blocks (dilations 1, 2, 4, ...) over a window of
// `lookback` steps, bottom block first.
std::vector<BlockPlan> plan_blocks(int64_t layers, int64_t kernel, int64_t lookback);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_BLOCK_PLAN_H_
