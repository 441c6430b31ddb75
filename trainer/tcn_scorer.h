// Scores many windows with the TCN on the CPU, in inference, in less time
// than Tcn::forward on each batch of windows, two ways:
//
// - Each convolution is one matrix product: a row per output step holding
//   its input steps side by side, through a 1x1 convolution over one wide
//   image, which oneDNN runs as a GEMM. The windows' short rows of steps run
//   1.3 to 4 times as fast that way (tcn_scorer.cc says what was measured).
// - Shared (scoring_plan.h): the steps windows of one name have in common
//   come from one pass over each name's series, a chunk of names at a time;
//   each window computes only the steps that read its causal padding.
//
// The predictions are Tcn::forward's on each window: the same function, to
// float rounding (tests/trainer/tcn_scorer_test.cc). Channels-last, in eval
// mode only (dropout is left out).
#ifndef HPO_TRAINER_TCN_SCORER_H_
#define HPO_TRAINER_TCN_SCORER_H_

#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trainer/features.h"
#include "trainer/models.h"
#include "trainer/scoring_plan.h"
#include "trainer/splits.h"

namespace hpo::trainer {

class TcnScorer {
 public:
  // Reads the model's weights as they are now. The series runs the lower
  // `shared_blocks` blocks (plan_scoring); 0 scores window by window.
  TcnScorer(Tcn& model, const FeatureSet& fs, int lookback, int64_t shared_blocks);
  ~TcnScorer();
  TcnScorer(const TcnScorer&) = delete;
  TcnScorer& operator=(const TcnScorer&) = delete;

  // The multiply-adds of scoring `samples`, the series pass's included.
  double work(const std::vector<Sample>& samples) const;
  // The rows of a batch for scoring `samples`: `most`, halved while the
  // chunks' padded last batches (half a batch each, on average) would pass
  // 1/32 of the windows, but no fewer than `fewest`.
  int64_t batch_rows(const std::vector<Sample>& samples, int64_t fewest, int64_t most) const;
  // Blocks the series runs: at most the constructor's shared_blocks.
  int64_t series_blocks() const { return plan_.series_blocks; }

  // The predictions of `samples`, in order, computing the windows' own steps
  // `rows` windows at a time. Every call has `rows` rows (the last padded),
  // as Loop::evaluate's forwards do, so that a prediction does not depend on
  // where the batches end.
  std::vector<float> predict(const std::vector<Sample>& samples, int64_t rows);

 private:
  struct Chunk;  // a pass's series for some names (tcn_scorer.cc)
  struct BlockWeights;

  // How a pass over `samples` splits into chunks of names: every chunk has
  // `tickers` names and the pass's days; `used` of them have samples, and a
  // pass computes their series. One look at each sample: work() and
  // batch_rows() need no more.
  struct Chunks {
    int64_t first_day = 0, days = 0, tickers = 0, used = 0;
    size_t count = 0;  // chunks of the panel's names, used or not

    size_t of(size_t ticker) const { return ticker / size_t(tickers); }
  };
  Chunks chunks(const std::vector<Sample>& samples) const;
  // Names per chunk, for a pass whose windows span `days` days.
  int64_t chunk_tickers(int64_t days) const;
  Chunk run_series(int64_t first_ticker, int64_t tickers, int64_t first_day, int64_t days) const;
  torch::Tensor predict_batch(const Chunk& chunk, const std::vector<Sample>& batch) const;
  // Predicts samples[which[i]] into (*pred)[which[i]], `rows` at a time.
  void predict_some(const Chunk& chunk, const std::vector<Sample>& samples,
                    const std::vector<size_t>& which, int64_t rows, std::vector<float>* pred) const;

  Tcn& model_;
  const FeatureSet& fs_;
  ScoringPlan plan_;
  int64_t hidden_;
  torch::Tensor store_;  // fs_.values as [tickers * days, features], not copied
  std::vector<BlockWeights> weights_;
};

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_TCN_SCORER_H_
