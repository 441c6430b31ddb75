#include "trainer/device_features.h"

#ifdef HPO_TORCH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace hpo::trainer {

namespace {

// A device copy of a host vector (from_blob only borrows the host memory).
torch::Tensor to_device(const std::vector<float>& host, std::vector<int64_t> shape,
                        torch::Device device) {
  return torch::from_blob(const_cast<float*>(host.data()), shape, torch::kFloat32)
      .to(device, /*non_blocking=*/false, /*copy=*/true);
}

}  // namespace

DeviceFeatures::DeviceFeatures(const FeatureSet& fs, int lookback, torch::Device device) {
  const int64_t cells = int64_t(fs.num_tickers * fs.num_days);
  values_ = to_device(fs.values, {cells, int64_t(fs.num_features)}, device);
  target_ = to_device(fs.target, {cells}, device);
  offsets_ =
      torch::arange(int64_t(lookback), torch::TensorOptions().dtype(torch::kInt64)).to(device);
}

size_t DeviceFeatures::bytes(const FeatureSet& fs) {
  return (fs.values.size() + fs.target.size()) * sizeof(float);
}

torch::Tensor DeviceFeatures::windows(const torch::Tensor& rows) const {
  const int64_t batch = rows.size(0), lookback = offsets_.size(0);
  // Row r + l of the store is day l of the window starting at r: a window is
  // contiguous there (features.h).
  const torch::Tensor index = (rows.unsqueeze(1) + offsets_).reshape({-1});
  return values_.index_select(0, index)
      .view({batch, lookback, values_.size(1)})
      .transpose(1, 2)
      .contiguous();
}

torch::Tensor DeviceFeatures::targets(const torch::Tensor& cells) const {
  return target_.index_select(0, cells);
}

bool device_features_fit(const FeatureSet& fs, torch::Device device) {
#ifdef HPO_TORCH_CUDA
  // The trainer trains on the current device (a slot sees one GPU), which
  // cudaMemGetInfo reads; it has a context by now (the model is there).
  if (!device.is_cuda()) return false;
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return false;
  return DeviceFeatures::bytes(fs) <= free / 4;
#else
  (void)fs;
  (void)device;
  return false;  // a CPU build has only the host, where the batcher's threads gather
#endif
}

}  // namespace hpo::trainer
