#include "trainer/models.h"

#include <cmath>

namespace hpo::trainer {

namespace F = torch::nn::functional;

WeightNormConv1dImpl::WeightNormConv1dImpl(int64_t in, int64_t out, int64_t kernel, int64_t dilation)
    : dilation_(dilation), left_pad_((kernel - 1) * dilation) {
  // Conv1d's default initialization for v and the bias; g starts at ||v|| so
  // the initial weight equals v, as torch.nn.utils.weight_norm does.
  const double bound = 1.0 / std::sqrt(double(in * kernel));
  v_ = register_parameter("v", torch::empty({out, in, kernel}).uniform_(-bound, bound));
  g_ = register_parameter("g", v_.detach().norm(2, {1, 2}, /*keepdim=*/true).clone());
  bias_ = register_parameter("bias", torch::empty({out}).uniform_(-bound, bound));
}

torch::Tensor WeightNormConv1dImpl::forward(const torch::Tensor& x) {
  torch::Tensor weight = v_ * (g_ / v_.norm(2, {1, 2}, /*keepdim=*/true));
  torch::Tensor padded = left_pad_ > 0 ? F::pad(x, F::PadFuncOptions({left_pad_, 0})) : x;
  return F::conv1d(padded, weight, F::Conv1dFuncOptions().bias(bias_).dilation(dilation_));
}

TemporalBlockImpl::TemporalBlockImpl(int64_t in, int64_t out, int64_t kernel, int64_t dilation, double dropout) {
  conv1_ = register_module("conv1", WeightNormConv1d(in, out, kernel, dilation));
  conv2_ = register_module("conv2", WeightNormConv1d(out, out, kernel, dilation));
  drop1_ = register_module("drop1", torch::nn::Dropout(dropout));
  drop2_ = register_module("drop2", torch::nn::Dropout(dropout));
  if (in != out) downsample_ = register_module("downsample", torch::nn::Conv1d(torch::nn::Conv1dOptions(in, out, 1)));
}

torch::Tensor TemporalBlockImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = drop1_(torch::relu(conv1_(x)));
  y = drop2_(torch::relu(conv2_(y)));
  return torch::relu(y + (downsample_ ? downsample_(x) : x));
}

Tcn::Tcn(int64_t features, const TrainerConfig& config) {
  blocks_ = register_module("blocks", torch::nn::Sequential());
  int64_t in = features;
  for (int i = 0; i < config.layers; ++i) {
    blocks_->push_back(TemporalBlock(in, config.hidden_size, config.kernel_size, int64_t(1) << i, config.dropout));
    in = config.hidden_size;
  }
  head_ = register_module("head", torch::nn::Linear(config.hidden_size, 1));
}

torch::Tensor Tcn::forward(const torch::Tensor& x) {
  torch::Tensor h = blocks_->forward(x);  // [batch, hidden, lookback]
  return head_(h.select(2, h.size(2) - 1)).squeeze(1);
}

Mlp::Mlp(int64_t features, const TrainerConfig& config) {
  net_ = register_module("net", torch::nn::Sequential());
  int64_t in = features * config.lookback;
  for (int i = 0; i < config.layers; ++i) {
    net_->push_back(torch::nn::Linear(in, config.hidden_size));
    net_->push_back(torch::nn::ReLU());
    net_->push_back(torch::nn::Dropout(config.dropout));
    in = config.hidden_size;
  }
  net_->push_back(torch::nn::Linear(in, 1));
}

torch::Tensor Mlp::forward(const torch::Tensor& x) { return net_->forward(x.flatten(1)).squeeze(1); }

std::shared_ptr<ReturnModel> make_model(int64_t features, const TrainerConfig& config) {
  if (config.model == "mlp") return std::make_shared<Mlp>(features, config);
  return std::make_shared<Tcn>(features, config);
}

}  // namespace hpo::trainer
