// Training steps replayed as CUDA graphs.
//
// At the batch sizes studies use, a training step on a large GPU is bound by
// the host: forward, backward, clipping and the optimizer launch a few
// hundred small kernels one after another, and the SMs wait between them. A
// CUDA graph records the whole step once and replays it with one launch.
// What must differ between replays lives in device memory the graph reads:
// the batch (copied into fixed input buffers), the learning rate and AdamW's
// step count. Nothing in a step reads a value back to the host.
//
// The first kWarmupSteps optimizer steps run eagerly, so that cuDNN's
// benchmark and cuBLAS's workspaces are settled before capture; a batch of
// another shape (an epoch's last, partial batch) also runs eagerly. Eager and
// replayed steps run the same StepBody, so a step means the same either way.
// All of a pass runs on one side stream (capture cannot use the default one).
#ifndef HPO_TRAINER_GRAPH_STEP_H_
#define HPO_TRAINER_GRAPH_STEP_H_

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>

namespace hpo::trainer {

// What one step computes, given by the training loop. Both run on the
// current CUDA stream and must neither allocate persistent state nor wait for
// the device.
struct StepBody {
  // Forward and backward of one micro-batch (x, y on the device: the
  // windows and targets, or where the body finds them); gradients
  // accumulate into the parameters' existing .grad. Returns the batch's
  // loss, a device scalar.
  std::function<torch::Tensor(const torch::Tensor& x, const torch::Tensor& y)> micro;
  // Clipping and the optimizer update at learning rate `lr` (a device
  // scalar); leaves the gradients zeroed in place.
  std::function<void(const torch::Tensor& lr)> update;
};

class GraphStep {
 public:
  static constexpr int kWarmupSteps = 3;

  // Whether this build can capture training steps: a CUDA LibTorch with the
  // fused AdamW kernel that reads its learning rate from a tensor.
  static bool available();

  // Throws std::logic_error where !available().
  GraphStep(StepBody body, torch::Device device, std::ostream& log);
  ~GraphStep();
  GraphStep(const GraphStep&) = delete;
  GraphStep& operator=(const GraphStep&) = delete;

  // While alive, the pass's work goes to the graph's stream (after the work
  // queued before it), and the pass's loss sum starts from zero.
  class Pass {
   public:
    explicit Pass(GraphStep& graph);
    ~Pass();
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

   private:
    GraphStep& graph_;
  };

  // Trains one micro-batch from host tensors (pinned, for an asynchronous
  // copy); with `step`, the optimizer update at learning rate `lr` follows.
  // Call inside a Pass.
  void train(const torch::Tensor& x, const torch::Tensor& y, bool step, double lr);

  // The sum of the pass's micro-batch losses so far (float64, on the device).
  torch::Tensor loss_sum() const;

  int64_t replays() const;  // micro-batches replayed from a graph
  int64_t eager() const;  // micro-batches run eagerly (warm-up, other shapes)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_GRAPH_STEP_H_
