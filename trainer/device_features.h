// The feature store on the training device, so that a batch crosses from
// the host as two small index vectors and its windows are gathered where
// the model runs.
//
// At large batches on a fast GPU, building each batch's windows on host
// threads and copying them over is slower than the training step itself
// (the step waited for its batch 22.5% of the time at batch 8192 on an
// H200). Gathered on the device, the windows also enter the captured CUDA
// graph with the rest of the step.
#ifndef HPO_TRAINER_DEVICE_FEATURES_H_
#define HPO_TRAINER_DEVICE_FEATURES_H_

#include <torch/torch.h>

#include <cstddef>

#include "trainer/features.h"

namespace hpo::trainer {

class DeviceFeatures {
 public:
  // Copies the store's values and targets to `device` once.
  DeviceFeatures(const FeatureSet& fs, int lookback, torch::Device device);

  // The bytes a copy of `fs` takes on the device.
  static size_t bytes(const FeatureSet& fs);

  // The windows starting at `rows` (int64 [batch], each a window's first row
  // in the store, on the device), [batch, features, lookback] float32: the
  // same values fill_batch writes.
  torch::Tensor windows(const torch::Tensor& rows) const;

  // The training targets at `cells` (int64 [batch], on the device).
  torch::Tensor targets(const torch::Tensor& cells) const;

 private:
  torch::Tensor values_;  // [tickers * days, features]
  torch::Tensor target_;  // [tickers * days]
  torch::Tensor offsets_;  // 0 .. lookback - 1, int64
};

// Whether a copy of `fs` should live on `device`: a CUDA device with room for
// it (at most a quarter of its free memory, leaving the rest to training).
bool device_features_fit(const FeatureSet& fs, torch::Device device);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_DEVICE_FEATURES_H_
