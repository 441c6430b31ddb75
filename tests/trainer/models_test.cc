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

// In both layouts (ReturnModel::use_channels_last).
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
        const torch::Tensor full = full_sequence_tcn(*model, x, layers, kernel);
        for (bool channels_last : {false, true}) {
          CAPTURE(channels_last);
          model->use_channels_last(channels_last);
          CHECK(torch::allclose(model->forward(x), full, 1e-5, 1e-6));
        }
      }
    }
  }
}

// Training rests on the gradients, not only the forward: the pruned TCN's,
// in both layouts, must be the full-sequence TCN's.
TEST_CASE("models: the pruned TCN's gradients are the full-sequence TCN's") {
  torch::manual_seed(2);
  for (int layers : {1, 3}) {
    for (int lookback : {5, 20}) {
      CAPTURE(layers);
      CAPTURE(lookback);
      TrainerConfig config;
      config.layers = layers;
      config.kernel_size = 3;
      config.hidden_size = 6;
      config.lookback = lookback;
      auto model = make_model(4, config);
      model->eval();  // no dropout: the two must see the same function
      const torch::Tensor x = torch::randn({5, 4, lookback}), y = torch::randn({5});
      auto grads = [&](const torch::Tensor& pred) {
        model->zero_grad();
        (pred - y).pow(2).sum().backward();
        std::vector<torch::Tensor> g;
        for (const auto& p : model->parameters()) g.push_back(p.grad().clone());
        return g;
      };
      const std::vector<torch::Tensor> full = grads(full_sequence_tcn(*model, x, layers, 3));
      for (bool channels_last : {false, true}) {
        CAPTURE(channels_last);
        model->use_channels_last(channels_last);
        const std::vector<torch::Tensor> fast = grads(model->forward(x));
        REQUIRE(fast.size() == full.size());
        for (size_t i = 0; i < fast.size(); ++i) {
          CAPTURE(i);
          CHECK(torch::allclose(fast[i], full[i], 1e-4, 1e-5));
        }
      }
    }
  }
}

// What the evaluation's padding (trainer.cc, kMinEvalRows) rests on: in a
// batch of 64 rows or more, a sample's prediction is the same, bit for bit,
// whatever the batch's size (train_test.cc checks the scores end to end).
TEST_CASE("models: from 64 rows up, a sample's prediction does not depend on its batch") {
  torch::manual_seed(3);
  for (int hidden : {8, 64}) {
    TrainerConfig config;
    config.layers = 2;
    config.hidden_size = hidden;
    config.lookback = 5;
    auto model = make_model(19, config);
    model->eval();
    torch::InferenceMode inference;
    const torch::Tensor x = torch::randn({1500, 19, config.lookback});
    for (bool channels_last : {false, true}) {
      model->use_channels_last(channels_last);
      const torch::Tensor whole = model->forward(x);
      for (int64_t n : {64, 100, 188, 255, 300, 511, 512, 700, 1000}) {
        const int64_t begin = x.size(0) - n;
        CAPTURE(hidden);
        CAPTURE(channels_last);
        CAPTURE(begin);
        CHECK(torch::equal(model->forward(x.narrow(0, begin, n)), whole.narrow(0, begin, n)));
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
