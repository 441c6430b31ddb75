// Return-prediction models. Both take a batch of lookback windows shaped
// [batch, features, lookback] and return one score per sample, [batch].
#ifndef HPO_TRAINER_MODELS_H_
#define HPO_TRAINER_MODELS_H_

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "trainer/block_plan.h"
#include "trainer/config.h"
#include "trainer/dropout.h"

namespace hpo::trainer {

class ReturnModel : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
  // The activations' memory layout, for models with convolutions: the same
  // function either way, at different speeds (DeviceSetup::channels_last).
  virtual void use_channels_last(bool) {}
};

// A fully connected layer, y = x W^T + b, initialized like torch::nn::Linear.
// On CPU it runs as a 1x1 convolution: Debian's LibTorch does matmul with the
// generic reference BLAS, while its oneDNN convolution is about 5x faster for
// these shapes.
class DenseImpl : public torch::nn::Module {
 public:
  DenseImpl(int64_t in, int64_t out);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::Tensor weight_, bias_;
};
TORCH_MODULE(Dense);

// The time steps each block computes: block_plan.h.

// A causal Conv1d with weight normalization (w = g * v / ||v||, Salimans &
// Kingma 2016), written out because LibTorch has no weight_norm. It reads a
// compact input (see above) and outputs `count` steps ending at the last
// input step, `stride` input steps apart; missing steps on the left are the
// causal zero padding.
class WeightNormConv1dImpl : public torch::nn::Module {
 public:
  WeightNormConv1dImpl(int64_t in, int64_t out, int64_t kernel);
  torch::Tensor forward(const torch::Tensor& x, int64_t count, int64_t stride);
  int64_t kernel() const { return kernel_; }
  // The convolution's weight, g * v / ||v||, [out, in, kernel].
  torch::Tensor weight() const;
  const torch::Tensor& bias() const { return bias_; }

 private:
  torch::Tensor v_, g_, bias_;
  int64_t kernel_;
};
TORCH_MODULE(WeightNormConv1d);

// Two causal convolutions with ReLU and dropout, plus a residual path (a 1x1
// convolution when the width changes).
class TemporalBlockImpl : public torch::nn::Module {
 public:
  TemporalBlockImpl(int64_t in, int64_t out, int64_t kernel, double dropout);
  torch::Tensor forward(const torch::Tensor& x, const BlockPlan& plan);
  // The layers, for scoring over whole series (tcn_scorer.h).
  const WeightNormConv1d& conv1() const { return conv1_; }
  const WeightNormConv1d& conv2() const { return conv2_; }
  const torch::nn::Conv1d& downsample() const { return downsample_; }  // null when in == out

 private:
  WeightNormConv1d conv1_{nullptr}, conv2_{nullptr};
  FastDropout drop1_{nullptr}, drop2_{nullptr};
  torch::nn::Conv1d downsample_{nullptr};
};
TORCH_MODULE(TemporalBlock);

// A stack of temporal blocks with dilations 1, 2, 4, ...; the last time step
// of the top block goes through a linear head.
class Tcn : public ReturnModel {
 public:
  Tcn(int64_t features, const TrainerConfig& config);
  torch::Tensor forward(const torch::Tensor& x) override;
  void use_channels_last(bool on) override { channels_last_ = on; }
  // The layers, for scoring over whole series (tcn_scorer.h).
  const std::vector<TemporalBlock>& blocks() const { return blocks_; }
  int64_t kernel() const { return kernel_; }
  // The head's score of each top-block output, [batch, hidden] -> [batch].
  torch::Tensor head(const torch::Tensor& last) { return head_(last).squeeze(1); }

 private:
  std::vector<TemporalBlock> blocks_;
  Dense head_{nullptr};
  int64_t kernel_;
  bool channels_last_ = false;
};

// The baseline: the flattened window through `layers` hidden layers.
class Mlp : public ReturnModel {
 public:
  Mlp(int64_t features, const TrainerConfig& config);
  torch::Tensor forward(const torch::Tensor& x) override;

 private:
  torch::nn::Sequential net_{nullptr};
};

std::shared_ptr<ReturnModel> make_model(int64_t features, const TrainerConfig& config);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_MODELS_H_
