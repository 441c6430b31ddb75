// Return-prediction models. Both take a batch of lookback windows shaped
// [batch, features, lookback] and return one score per sample, [batch].
#pragma once

#include <memory>

#include <torch/torch.h>

#include "trainer/config.h"

namespace hpo::trainer {

class ReturnModel : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
};

// A causal, dilated Conv1d with weight normalization (w = g * v / ||v||,
// Salimans & Kingma 2016), written out because LibTorch has no weight_norm.
// Causal: the input is padded on the left only, so output t sees inputs <= t.
class WeightNormConv1dImpl : public torch::nn::Module {
 public:
  WeightNormConv1dImpl(int64_t in, int64_t out, int64_t kernel, int64_t dilation);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::Tensor v_, g_, bias_;
  int64_t dilation_, left_pad_;
};
TORCH_MODULE(WeightNormConv1d);

// Two causal convolutions with ReLU and dropout, plus a residual path (a 1x1
// convolution when the width changes).
class TemporalBlockImpl : public torch::nn::Module {
 public:
  TemporalBlockImpl(int64_t in, int64_t out, int64_t kernel, int64_t dilation, double dropout);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  WeightNormConv1d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Dropout drop1_{nullptr}, drop2_{nullptr};
  torch::nn::Conv1d downsample_{nullptr};
};
TORCH_MODULE(TemporalBlock);

// A stack of temporal blocks with dilations 1, 2, 4, ...; the last time step
// of the top block goes through a linear head.
class Tcn : public ReturnModel {
 public:
  Tcn(int64_t features, const TrainerConfig& config);
  torch::Tensor forward(const torch::Tensor& x) override;

 private:
  torch::nn::Sequential blocks_{nullptr};
  torch::nn::Linear head_{nullptr};
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
