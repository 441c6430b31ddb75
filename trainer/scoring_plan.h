// Which of the pruned TCN's time steps (block_plan.h) each scored window computes
// itself, and which it takes from one pass over each name's whole series.
//
// Windows of the same name overlap: the window of day t and that of day t + 1
// share all but one day. An activation's step whose receptive field lies
// inside the window is a function of the name's days alone, the same in every
// window that holds it, and the same as in a causal TCN run over the name's
// whole series. Only the oldest steps of each layer read the window's causal
// zero padding: those are each window's own. So a scoring pass can run the
// layers over each name's series once (TcnScorer), and each window computes
// just its own steps, taking the rest from the series. For the default TCN
// (3 blocks, kernel 3, 20 days) that is 13 of the 29 hidden-to-hidden steps
// of a window, plus 4 steps of series per name and day; fewer still where
// the top step's receptive field fits the window.
//
// Unshared, every step the head needs is the window's own: plan_blocks'
// steps. In between, the lower blocks can be shared and the upper not.
#ifndef HPO_TRAINER_SCORING_PLAN_H_
#define HPO_TRAINER_SCORING_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trainer/block_plan.h"

namespace hpo::trainer {

// One activation of the pruned TCN as a window holds it: `count` steps,
// `spacing` days apart, oldest first, the last on the window's last day.
struct LayerSteps {
  int64_t spacing = 1;
  int64_t count = 0;
  int64_t field = 1;  // days a step reads, through every layer below, itself included
  // Steps [0, own) are computed by each window, steps [own, kept) are taken
  // from the series, steps from `kept` on are read by nothing. Shared, the
  // own steps are those that reach past the window's first day (into the
  // causal zero padding).
  int64_t own = 0;
  int64_t kept = 0;

  // Days between step i and the window's last day.
  int64_t days_back(int64_t i) const { return (count - 1 - i) * spacing; }
};

struct ScoringPlan {
  int64_t kernel = 0, lookback = 0;
  std::vector<BlockPlan> blocks;  // plan_blocks'
  LayerSteps input;  // the window's days: all taken from the feature store
  std::vector<LayerSteps> mid, out;  // per block: its first convolution's output, and the block's
  // Blocks whose activations some window takes from the series: the series
  // pass runs blocks [0, series_blocks). 0 when unshared.
  int64_t series_blocks = 0;

  // The step of its input that output step 0 of block b's first
  // convolution, its second, and its residual read first: output step i
  // reads input steps first + i * stride + j, j < kernel (1 for the
  // residual), where the stride is 1 for the first convolution and the
  // block's out_stride for the others. Below 0: the causal zero padding.
  int64_t mid_first(size_t b) const;
  int64_t out_first(size_t b) const;
  int64_t skip_first(size_t b) const;

  // Multiply-adds of one window's own steps and the head.
  int64_t own_macs(int64_t features, int64_t hidden) const;
  // Multiply-adds of the series pass for one name and day.
  int64_t series_macs_per_day(int64_t features, int64_t hidden) const;
};

// The series may run blocks [0, shared_blocks): their steps that read none
// of the window's padding come from it, and the blocks above compute every
// step they need in each window. 0: window by window; `layers`: the most
// shared. Fewer shared blocks can be less work where the windows are sparse
// (a validation window every fifth day): the lower blocks' series are cheap
// per day, the upper ones' dear.
ScoringPlan plan_scoring(int64_t layers, int64_t kernel, int64_t lookback, int64_t shared_blocks);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_SCORING_PLAN_H_
