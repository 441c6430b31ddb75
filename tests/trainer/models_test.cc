#include "trainer/models.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

namespace hpo::trainer {
namespace {

namespace F = torch::nn::functional;

// The textbook TCN over the full sequence, from the model's own parameters:
// each block pads left by (k-1)*d and runs dilated convolutions at every step.
torch::Tensor full_sequence_tcn(const torch::nn::Module& model, const torch::Tensor& x, int layers,
                                int kernel) {
  auto p = model.named_parameters();
  auto conv = [&](const torch::Tensor& in, const std::string& name, int64_t d) {
    torch::Tensor v = p[name + ".v"], g = p[name + ".g"];
    torch::Tensor w = v * (g / v.norm(2, {1, 2}, true));
    return F::conv1d(F::pad(in, F::PadFuncOptions({(kernel - 1) * d, 0})), w,
                     F::Conv1dFuncOptions().bias(p[name + ".bias"]).dilation(d));
  };
  torch::Tensor h = x;
  for (int b = 0; b < layers; ++b) {
    const std::string block = "block" + std::to_string(b);
    const int64_t d = int64_t(1) << b;
    torch::Tensor y =
        torch::relu(conv(torch::relu(conv(h, block + ".conv1", d)), block + ".conv2", d));
    torch::Tensor skip = p.contains(block + ".downsample.weight")
                             ? F::conv1d(h, p[block + ".downsample.weight"],
                                         F::Conv1dFuncOptions().bias(p[block + ".downsample.bias"]))
                             : h;
    h = torch::relu(y + skip);
  }
  return torch::linear(h.select(2, h.size(2) - 1), p["head.weight"], p["head.bias"]).squeeze(1);
}

TEST_CASE("models: the pruned TCN equals the full-sequence TCN") {
  torch::manual_seed(1);
  for (int layers : {1, 2, 3, 5}) {
    for (int kernel : {2, 3}) {
      for (int lookback : {1, 7, 20}) {
        CAPTURE(layers);
        CAPTURE(kernel);
        CAPTURE(lookback);
        TrainerConfig config;
        config.layers = layers;
        config.kernel_size = kernel;
        config.hidden_size = 6;
        config.lookback = lookback;
        auto model = make_model(4, config);
        model->eval();
        torch::NoGradGuard no_grad;
        torch::Tensor x = torch::randn({3, 4, lookback});
        torch::Tensor fast = model->forward(x), full = full_sequence_tcn(*model, x, layers, kernel);
        CHECK(torch::allclose(fast, full, 1e-5, 1e-6));
      }
    }
  }
}

TEST_CASE("models: block plans for a 20-step window") {
  std::vector<BlockPlan> plans = plan_blocks(3, 3, 20);
  // Top block (dilation 4): one output from 3 middle steps, reading 5 steps.
  CHECK(plans[2].out_count == 1);
  CHECK(plans[2].mid_count == 3);
  // Middle block (dilation 2): outputs those 5 steps, 4 apart.
  CHECK(plans[1].out_count == 5);
  CHECK(plans[1].out_stride == 2);
  CHECK(plans[1].mid_count == 10);  // capped at the 10 even-spaced steps >= 0
  CHECK(plans[0].out_count == 10);
  CHECK(plans[0].mid_count == 20);
}

TEST_CASE("models: Dense is a linear layer") {
  Dense dense(7, 3);
  torch::Tensor x = torch::randn({5, 7});
  auto p = dense->named_parameters();
  CHECK(torch::allclose(dense(x), torch::linear(x, p["weight"], p["bias"]), 1e-5, 1e-6));
}

TEST_CASE("models: the MLP takes the flattened window") {
  TrainerConfig config;
  config.model = "mlp";
  config.lookback = 5;
  config.hidden_size = 8;
  config.layers = 2;
  auto model = make_model(3, config);
  CHECK(model->forward(torch::randn({4, 3, 5})).sizes() == torch::IntArrayRef({4}));
}

}  // namespace
}  // namespace hpo::trainer
