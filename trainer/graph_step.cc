#include "trainer/graph_step.h"

#include <torch/version.h>

#include <stdexcept>

// Capture needs CUDA's headers (only a CUDA LibTorch has them) and the fused
// AdamW kernel that reads its learning rate from a tensor (torch >= 2.4).
#if defined(HPO_TORCH_CUDA) && \
    (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4))
#define HPO_GRAPH_STEP 1
#endif

#ifdef HPO_GRAPH_STEP
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <torch/cuda.h>

#include <optional>
#include <vector>
#endif

namespace hpo::trainer {

#ifdef HPO_GRAPH_STEP

struct GraphStep::Impl {
  Impl(StepBody b, torch::Device d, std::ostream& l)
      : body(std::move(b)),
        device(d),
        log(l),
        stream(c10::cuda::getStreamFromPool(false, d.index())) {
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    lr = torch::zeros({}, f32);
    loss_sum = torch::zeros({}, f32.dtype(torch::kFloat64));
  }

  void begin_pass() {
    // The side stream starts after everything queued so far (evaluation,
    // restored weights) has finished; once per epoch, so a full sync is cheap.
    torch::cuda::synchronize();
    guard.emplace(stream);
    // The autocast cache would keep weight casts made inside a capture alive
    // outside it; each step casts afresh instead (PyTorch's advice for graphs).
    cache_was_enabled = at::autocast::is_autocast_cache_enabled();
    at::autocast::set_autocast_cache_enabled(false);
    loss_sum.zero_();
  }

  void end_pass() {
    torch::cuda::synchronize();
    at::autocast::set_autocast_cache_enabled(cache_was_enabled);
    guard.reset();
  }

  void train(const torch::Tensor& x, const torch::Tensor& y, bool step, double rate) {
    if (step) lr.fill_(rate);  // a kernel on the stream, not a sync
    if (!failed && !full && eager_steps >= kWarmupSteps && x.sizes().equals(shape)) capture(x, y);
    if (full && x.sizes().equals(shape)) {
      static_x.copy_(x, /*non_blocking=*/true);
      static_y.copy_(y, /*non_blocking=*/true);
      if (!step && !micro) capture_micro();
      (step ? full : micro)->replay();
      ++replays;
      return;
    }
    if (shape.empty()) shape = x.sizes().vec();  // the shape to capture
    run(x.to(device, /*non_blocking=*/true), y.to(device, /*non_blocking=*/true), step);
    ++eager;
    if (step) ++eager_steps;
  }

  void run(const torch::Tensor& x, const torch::Tensor& y, bool step) {
    loss_sum.add_(body.micro(x, y).to(torch::kFloat64));
    if (step) body.update(lr);
  }

  // Records a whole step (micro-batch and update) on the static buffers.
  void capture(const torch::Tensor& x, const torch::Tensor& y) {
    // The inputs' own types: windows and targets, or their store indices.
    static_x = torch::empty(shape, torch::TensorOptions().dtype(x.dtype()).device(device));
    static_y = torch::empty(y.sizes(), torch::TensorOptions().dtype(y.dtype()).device(device));
    full = record(/*step=*/true, nullptr);
    if (full)
      log << "CUDA graphs: training step captured for batches of " << shape[0] << " after "
          << eager_steps << " eager steps\n";
  }

  // A micro-batch without the update, for grad_accum > 1; it shares the full
  // step's memory pool (the two never run at once, and nothing they allocate
  // outlives a replay).
  void capture_micro() {
    micro = record(/*step=*/false, full.get());
    if (!micro) full.reset();  // no graphs at all rather than half
  }

  std::unique_ptr<at::cuda::CUDAGraph> record(bool step, at::cuda::CUDAGraph* share) {
    auto graph = std::make_unique<at::cuda::CUDAGraph>();
    try {
      // Thread-local capture: the batch builders keep allocating pinned host
      // memory on their threads meanwhile, which a global capture forbids
      // (it would fail the capture and abort the builder).
      using Pool = decltype(graph->pool());
      graph->capture_begin(share ? share->pool() : Pool{0, 0}, cudaStreamCaptureModeThreadLocal);
      run(static_x, static_y, step);
      graph->capture_end();
      return graph;
    } catch (const std::exception& e) {
      abandon_capture();
      failed = true;
      log << "CUDA graphs: capture failed, training eagerly: " << e.what() << "\n";
      return nullptr;
    }
  }

  // Ends a capture an exception interrupted, so the stream can run eagerly.
  void abandon_capture() {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream.stream(), &status) == cudaSuccess &&
        status != cudaStreamCaptureStatusNone) {
      cudaGraph_t graph = nullptr;
      cudaStreamEndCapture(stream.stream(), &graph);
      if (graph) cudaGraphDestroy(graph);
    }
    (void)cudaGetLastError();
  }

  StepBody body;
  torch::Device device;
  std::ostream& log;
  c10::cuda::CUDAStream stream;
  std::optional<c10::cuda::CUDAStreamGuard> guard;
  bool cache_was_enabled = true;

  torch::Tensor lr, loss_sum;  // read and written by the graphs
  std::vector<int64_t> shape;  // the first batch's, which the graphs take
  torch::Tensor static_x, static_y;  // the graphs' inputs
  std::unique_ptr<at::cuda::CUDAGraph> full, micro;
  bool failed = false;
  int64_t eager_steps = 0, eager = 0, replays = 0;
};

bool GraphStep::available() { return true; }

GraphStep::GraphStep(StepBody body, torch::Device device, std::ostream& log)
    : impl_(std::make_unique<Impl>(std::move(body), device, log)) {}

GraphStep::Pass::Pass(GraphStep& graph) : graph_(graph) { graph_.impl_->begin_pass(); }

GraphStep::Pass::~Pass() {
  try {
    graph_.impl_->end_pass();
  } catch (const std::exception& e) {
    graph_.impl_->log << "CUDA graphs: ending a pass: " << e.what() << "\n";
  }
}

void GraphStep::train(const torch::Tensor& x, const torch::Tensor& y, bool step, double lr) {
  impl_->train(x, y, step, lr);
}

torch::Tensor GraphStep::loss_sum() const { return impl_->loss_sum; }
int64_t GraphStep::replays() const { return impl_->replays; }
int64_t GraphStep::eager() const { return impl_->eager; }

#else  // no CUDA graphs in this build

struct GraphStep::Impl {};

bool GraphStep::available() { return false; }

GraphStep::GraphStep(StepBody, torch::Device, std::ostream&) {
  throw std::logic_error("GraphStep: this LibTorch cannot capture CUDA graphs");
}

GraphStep::Pass::Pass(GraphStep& graph) : graph_(graph) {}
GraphStep::Pass::~Pass() = default;

void GraphStep::train(const torch::Tensor&, const torch::Tensor&, bool, double) {}
torch::Tensor GraphStep::loss_sum() const { return {}; }
int64_t GraphStep::replays() const { return 0; }
int64_t GraphStep::eager() const { return 0; }

#endif

GraphStep::~GraphStep() = default;

}  // namespace hpo::trainer
