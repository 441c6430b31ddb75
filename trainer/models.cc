#include "trainer/models.h"

#include <algorithm>
#include <cmath>

namespace hpo::trainer {

namespace F = torch::nn::functional;

namespace {

// The TCN's activations come in two layouts (see Tcn::forward): [batch,
// channels, time], or [batch, channels, 1, time] channels-last (the default,
// DeviceSetup::channels_last). Time is the last axis in both.
int64_t time_axis(const torch::Tensor& x) { return x.dim() - 1; }

// A convolution along time with a [out, in, kernel] weight, in either layout.
torch::Tensor conv_time(const torch::Tensor& x, const torch::Tensor& weight,
                        const torch::Tensor& bias, int64_t stride) {
  if (x.dim() == 3) return F::conv1d(x, weight, F::Conv1dFuncOptions().bias(bias).stride(stride));
  // Narrowed and padded inputs are made dense in channels-last again, so that
  // oneDNN picks its channels-last kernels rather than reordering.
  return F::conv2d(x.contiguous(torch::MemoryFormat::ChannelsLast), weight.unsqueeze(2),
                   F::Conv2dFuncOptions().bias(bias).stride({1, stride}));
}

// The identity, whose backward hands on its gradient in channels-last.
// Narrowing, padding, slicing and selecting time steps send back gradients
// in the default layout, and LibTorch's CPU kernels for a ReLU's backward
// (and the convolutions') run many times slower when the gradient's layout
// differs from the saved activation's.
struct ChannelsLastGrad : torch::autograd::Function<ChannelsLastGrad> {
  static torch::Tensor forward(torch::autograd::AutogradContext*, const torch::Tensor& x) {
    return x.view_as(x);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext*,
                                                 torch::autograd::variable_list grad) {
    return {grad[0].contiguous(torch::MemoryFormat::ChannelsLast)};
  }
};

torch::Tensor channels_last_grad(const torch::Tensor& x) {
  if (x.dim() != 4 || !x.requires_grad()) return x;
  return ChannelsLastGrad::apply(x);
}

}  // namespace

DenseImpl::DenseImpl(int64_t in, int64_t out) {
  const double bound = 1.0 / std::sqrt(double(in));
  weight_ = register_parameter("weight", torch::empty({out, in}).uniform_(-bound, bound));
  bias_ = register_parameter("bias", torch::empty({out}).uniform_(-bound, bound));
}

torch::Tensor DenseImpl::forward(const torch::Tensor& x) {
  if (x.is_cuda()) return torch::linear(x, weight_, bias_);
  return F::conv1d(x.unsqueeze(2), weight_.unsqueeze(2), F::Conv1dFuncOptions().bias(bias_))
      .squeeze(2);
}

WeightNormConv1dImpl::WeightNormConv1dImpl(int64_t in, int64_t out, int64_t kernel)
    : kernel_(kernel) {
  // Conv1d's default initialization for v and the bias; g starts at ||v|| so
  // the initial weight equals v, as torch.nn.utils.weight_norm does.
  const double bound = 1.0 / std::sqrt(double(in * kernel));
  v_ = register_parameter("v", torch::empty({out, in, kernel}).uniform_(-bound, bound));
  g_ = register_parameter("g", v_.detach().norm(2, {1, 2}, /*keepdim=*/true).clone());
  bias_ = register_parameter("bias", torch::empty({out}).uniform_(-bound, bound));
}

torch::Tensor WeightNormConv1dImpl::weight() const {
  return v_ * (g_ / v_.norm(2, {1, 2}, /*keepdim=*/true));
}

torch::Tensor WeightNormConv1dImpl::forward(const torch::Tensor& x, int64_t count, int64_t stride) {
  const int64_t t = time_axis(x), need = (count - 1) * stride + kernel_, have = x.size(t);
  torch::Tensor input =
      need > have ? F::pad(x, F::PadFuncOptions({need - have, 0})) : x.narrow(t, have - need, need);
  return conv_time(input, weight(), bias_, stride);
}

TemporalBlockImpl::TemporalBlockImpl(int64_t in, int64_t out, int64_t kernel, double dropout) {
  conv1_ = register_module("conv1", WeightNormConv1d(in, out, kernel));
  conv2_ = register_module("conv2", WeightNormConv1d(out, out, kernel));
  drop1_ = register_module("drop1", FastDropout(dropout));
  drop2_ = register_module("drop2", FastDropout(dropout));
  if (in != out)
    downsample_ =
        register_module("downsample", torch::nn::Conv1d(torch::nn::Conv1dOptions(in, out, 1)));
}

torch::Tensor TemporalBlockImpl::forward(const torch::Tensor& x, const BlockPlan& plan) {
  torch::Tensor y = channels_last_grad(drop1_(torch::relu(conv1_(x, plan.mid_count, 1))));
  y = drop2_(torch::relu(conv2_(y, plan.out_count, plan.out_stride)));
  // The residual at the output steps: the last input step and every
  // out_stride-th one before it.
  const int64_t t = time_axis(x), n = x.size(t);
  torch::Tensor skip =
      x.slice(t, n - 1 - (plan.out_count - 1) * plan.out_stride, n, plan.out_stride);
  if (downsample_) skip = conv_time(skip, downsample_->weight, downsample_->bias, 1);
  return channels_last_grad(torch::relu(y + skip));
}

Tcn::Tcn(int64_t features, const TrainerConfig& config) : kernel_(config.kernel_size) {
  int64_t in = features;
  for (int i = 0; i < config.layers; ++i) {
    blocks_.push_back(
        register_module("block" + std::to_string(i),
                        TemporalBlock(in, config.hidden_size, config.kernel_size, config.dropout)));
    in = config.hidden_size;
  }
  head_ = register_module("head", Dense(config.hidden_size, 1));
}

torch::Tensor Tcn::forward(const torch::Tensor& x) {
  const std::vector<BlockPlan> plans = plan_blocks(int64_t(blocks_.size()), kernel_, x.size(2));
  // x is [batch, features, lookback]. Channels-last, the blocks run as 2-D
  // convolutions over a one-row image: oneDNN's kernels take that layout as
  // it is, where the 3-D one is reordered on every call. On 2 CPU cores that
  // scored the validation and test windows 1.3x as fast; training, whose
  // step is more than its convolutions, gained up to 7% (docs/benchmarks.md,
  // "Trial start" and "Trainer speed").
  torch::Tensor h =
      channels_last_ ? x.unsqueeze(2).contiguous(torch::MemoryFormat::ChannelsLast) : x;
  for (size_t b = 0; b < blocks_.size(); ++b) h = blocks_[b]->forward(h, plans[b]);
  torch::Tensor last = h.select(time_axis(h), -1);  // [batch, hidden(, 1)]
  return head(last.dim() == 3 ? last.squeeze(2) : last);
}

Mlp::Mlp(int64_t features, const TrainerConfig& config) {
  net_ = register_module("net", torch::nn::Sequential());
  int64_t in = features * config.lookback;
  for (int i = 0; i < config.layers; ++i) {
    net_->push_back(Dense(in, config.hidden_size));
    net_->push_back(torch::nn::ReLU());
    net_->push_back(FastDropout(config.dropout));
    in = config.hidden_size;
  }
  net_->push_back(Dense(in, 1));
}

torch::Tensor Mlp::forward(const torch::Tensor& x) {
  return net_->forward(x.flatten(1)).squeeze(1);
}

std::shared_ptr<ReturnModel> make_model(int64_t features, const TrainerConfig& config) {
  if (config.model == "mlp") return std::make_shared<Mlp>(features, config);
  return std::make_shared<Tcn>(features, config);
}

}  // namespace hpo::trainer
