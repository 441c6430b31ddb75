// A training step replayed from a CUDA graph is the step LibTorch's own AdamW
// takes eagerly: same parameters, same losses, with gradient accumulation,
// clipping, a learning-rate schedule and a partial last batch (which runs
// eagerly between replays). Runs where the build and machine have CUDA; on a
// CPU build it checks that graphs are reported unavailable, which is what
// keeps them off there.
#include "trainer/graph_step.h"

#include <torch/torch.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "trainer/device.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

namespace hpo::trainer {
namespace {

constexpr int kAccum = 2;
constexpr double kClip = 0.5;

torch::nn::Sequential make_model(torch::Device device) {
  torch::manual_seed(11);
  torch::nn::Sequential m(torch::nn::Linear(8, 16), torch::nn::ReLU(), torch::nn::Linear(16, 1));
  m->to(device);
  return m;
}

double rate(int64_t step) { return 1e-2 * double(step + 1) / 7.0; }

// Host batches of 32 and a partial one of 10, fresh random values each.
std::vector<std::pair<torch::Tensor, torch::Tensor>> make_batches() {
  torch::manual_seed(5);
  std::vector<std::pair<torch::Tensor, torch::Tensor>> batches;
  for (int k = 0; k < 9; ++k) {
    const int64_t n = k < 8 ? 32 : 10;
    batches.emplace_back(torch::randn({n, 8}).pin_memory(), torch::randn({n}).pin_memory());
  }
  return batches;
}

torch::Tensor loss_of(torch::nn::Sequential& m, const torch::Tensor& x, const torch::Tensor& y) {
  return torch::mse_loss(m->forward(x).squeeze(1), y);
}

double max_gap(torch::nn::Sequential& a, torch::nn::Sequential& b) {
  double gap = 0;
  auto pa = a->parameters(), pb = b->parameters();
  for (size_t i = 0; i < pa.size(); ++i)
    gap = std::max(gap, (pa[i] - pb[i]).abs().max().item<double>());
  return gap;
}

TEST_CASE("CUDA graphs: a replayed step is LibTorch's eager AdamW step") {
  if (!GraphStep::available()) {
    std::ostringstream log;
    CHECK_THROWS_AS(GraphStep(StepBody{}, torch::kCPU, log), std::logic_error);
    return;
  }
  REQUIRE(torch::cuda::is_available());
  at::globalContext().setAllowTF32CuBLAS(false);  // compare fp32 with fp32
  const torch::Device cuda(torch::kCUDA, 0);
  const auto batches = make_batches();
  const auto options = torch::optim::AdamWOptions(1e-2).weight_decay(1e-3);

  // The reference: LibTorch's AdamW, one parameter at a time.
  torch::nn::Sequential ref = make_model(cuda);
  torch::optim::AdamW ref_opt(ref->parameters(), options);
  std::vector<double> ref_losses;
  int64_t ref_step = 0;

  // The same training through GraphStep.
  torch::nn::Sequential net = make_model(cuda);
  torch::optim::AdamW opt(net->parameters(), options);
  std::vector<torch::Tensor> params = net->parameters();
  torch::Tensor step_count =
      torch::full({}, double(prepare_adamw_state(opt)), torch::TensorOptions().device(cuda));
  StepBody body;
  body.micro = [&](const torch::Tensor& x, const torch::Tensor& y) {
    torch::Tensor loss = loss_of(net, x, y);
    (loss / double(kAccum)).backward();
    return loss.detach();
  };
  body.update = [&](const torch::Tensor& lr) {
    clip_grad_norm(params, kClip, /*multi_tensor=*/true);
    adamw_step_in_place(opt, lr, step_count);
  };
  std::ostringstream log;
  GraphStep graph(body, cuda, log);
  int64_t step = 0;
  std::vector<double> graph_losses;

  for (int pass = 0; pass < 4; ++pass) {
    double ref_sum = 0;
    for (size_t k = 0; k < batches.size(); ++k) {
      const bool step_now = (k + 1) % kAccum == 0 || k + 1 == batches.size();
      torch::Tensor loss = loss_of(ref, batches[k].first.to(cuda), batches[k].second.to(cuda));
      (loss / double(kAccum)).backward();
      ref_sum += loss.item<double>();
      if (step_now) {
        for (auto& g : ref_opt.param_groups())
          static_cast<torch::optim::AdamWOptions&>(g.options()).lr(rate(ref_step));
        torch::nn::utils::clip_grad_norm_(ref->parameters(), kClip);
        ref_opt.step();
        ref_opt.zero_grad();
        ++ref_step;
      }
    }
    ref_losses.push_back(ref_sum);

    GraphStep::Pass scope(graph);
    for (size_t k = 0; k < batches.size(); ++k) {
      const bool step_now = (k + 1) % kAccum == 0 || k + 1 == batches.size();
      graph.train(batches[k].first, batches[k].second, step_now, rate(step));
      if (step_now) {
        count_adamw_step(opt);
        ++step;
      }
    }
    graph_losses.push_back(graph.loss_sum().item<double>());
  }

  CAPTURE(log.str());
  CHECK(graph.replays() > 0);  // full batches after the warm-up
  CHECK(graph.eager() >= 4 + GraphStep::kWarmupSteps);  // the warm-up and every partial batch
  CHECK(step == ref_step);
  CHECK(max_gap(net, ref) < 1e-5);
  for (size_t p = 0; p < ref_losses.size(); ++p)
    CHECK(std::abs(graph_losses[p] - ref_losses[p]) < 1e-5 * (1 + std::abs(ref_losses[p])));
  // The host step counts (what checkpoints save) followed the device's.
  for (const auto& [key, state] : opt.state()) {
    (void)key;
    CHECK(static_cast<torch::optim::AdamWParamState&>(*state).step() == step);
  }
  CHECK(step_count.item<double>() == double(step));
}

}  // namespace
}  // namespace hpo::trainer
