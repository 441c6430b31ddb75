// Builds batches of lookback windows on background threads, ahead of the
// training loop, instead of fetching and stacking sample by sample.
//
// A pass is an ordered list of samples cut into batches; batch k is built by
// whichever worker claims it, and next() hands batches out strictly in order,
// so the batches (and so training on CPU) do not depend on thread timing.
// At most workers * prefetch_factor batches are in flight.
#ifndef HPO_TRAINER_BATCHER_H_
#define HPO_TRAINER_BATCHER_H_

#include <torch/torch.h>

#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "trainer/features.h"
#include "trainer/splits.h"

namespace hpo::trainer {

struct Batch {
  size_t index = 0;  // position in the pass
  size_t size = 0;  // samples
  std::exception_ptr error;  // a worker's failure, rethrown by next()
  torch::Tensor x;  // [batch, features, lookback] float32
  torch::Tensor y;  // [batch] normalized target
  // With BatcherOptions::indices, x and y stay empty and the batch holds
  // where they are in the feature store instead, for the device to gather
  // (device_features.h): each window's first row and each target's cell,
  // int64 [batch].
  torch::Tensor rows, cells;
};

// The store rows of `count` samples' windows (the first day's) and the cells
// of their targets.
void fill_indices(const FeatureSet& fs, int lookback, const Sample* samples, size_t count,
                  int64_t* rows, int64_t* cells);

// Copies the windows of `count` samples into x ([count, features, lookback],
// transposed from the feature store's [lookback, features]) and their
// targets into y.
void fill_batch(const FeatureSet& fs, int lookback, const Sample* samples, size_t count, float* x,
                float* y);

struct BatcherOptions {
  int workers = 1;  // 0 = build in next(), on the caller's thread
  int prefetch_factor = 2;  // batches in flight per worker
  bool pin_memory = false;  // page-locked batches for async host-to-device copies
  int threads = 0;  // at::set_num_threads in each worker; 0 = leave
  bool indices = false;  // batches of store indices, not windows (see Batch)
};

class Batcher {
 public:
  Batcher(const FeatureSet& fs, int lookback, const BatcherOptions& options);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Starts a pass over `samples` in batches of `batch_size`, from batch
  // `first` (a resumed epoch skips the batches it already trained on).
  // Batches of a previous pass still in flight are dropped.
  void start(std::vector<Sample> samples, size_t batch_size, size_t first = 0);

  // The next batch of the pass, or nothing at its end. Time spent blocked
  // here is data wait, added to wait_seconds().
  std::optional<Batch> next();

  double wait_seconds() const { return wait_seconds_; }
  void reset_wait() { wait_seconds_ = 0; }

 private:
  struct Pass {
    std::vector<Sample> samples;
    size_t batch_size = 1, num_batches = 0;
  };

  Batch build(const Pass& pass, size_t k) const;
  void work();
  bool claimable() const;

  const FeatureSet& fs_;
  const int lookback_;
  const BatcherOptions options_;
  const size_t depth_;

  std::mutex mu_;
  std::condition_variable work_cv_, ready_cv_;
  std::shared_ptr<const Pass> pass_;
  uint64_t generation_ = 0;
  size_t next_claim_ = 0, next_take_ = 0;
  std::map<size_t, Batch> ready_;
  bool shutdown_ = false;
  std::vector<std::thread> workers_;
  double wait_seconds_ = 0;
};

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_BATCHER_H_
