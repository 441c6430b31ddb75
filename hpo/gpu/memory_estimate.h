// How much GPU memory one trial of the stock trainer (hpo-trainer's TCN or
// MLP) needs, by the arithmetic of seed 004:
//
//   model memory = params x 4 bytes x (1 weights + 1 grads + 2 AdamW moments)
//   activations  = batch x lookback x hidden x layers x 4 bytes x tensors kept per layer
//   inputs       = batch x features x lookback x 4 bytes
//
// Mixed precision (AMP) halves the activations; weights, gradients and the
// optimizer state stay in fp32. A process on a GPU also pays for its CUDA
// context. This is an estimate for planning, not a measurement: allocator
// caching and cuDNN workspaces come on top.
#ifndef HPO_GPU_MEMORY_ESTIMATE_H_
#define HPO_GPU_MEMORY_ESTIMATE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hpo/config/study_config.h"

namespace hpo {

// The stock trainer's defaults (trainer/config.h) and its 19 input features
// (trainer/FEATURES.md).
struct ModelShape {
  std::string model = "tcn";  // tcn | mlp
  int64_t features = 19;
  int64_t lookback = 20;
  int64_t hidden_size = 64;
  int64_t layers = 3;
  int64_t kernel_size = 3;
  int64_t batch_size = 512;
  bool amp = false;  // bf16/fp16 autocast (GPU only)
};

// The stock trainer's samples per epoch when a study does not say
// (trainer/config.h's max_train_samples; 0 there means every sample).
constexpr int64_t kTrainerMaxTrainSamples = 32768;

// A TCN block keeps about this many [batch, hidden, lookback] tensors for
// its backward pass: two convolutions, two ReLUs, two dropouts, the residual
// sum and its ReLU. Seed 004 counts one; a TCN keeps more.
constexpr int64_t kTensorsPerLayer = 8;
constexpr double kCudaContextBytes =
    512.0 * 1024 * 1024;  // CUDA context + cuDNN handles, per process

struct MemoryEstimate {
  int64_t params = 0;
  double model_bytes = 0;  // weights + grads + AdamW state
  double activation_bytes = 0;
  double input_bytes = 0;
  double context_bytes = 0;  // on a GPU only
  double total_bytes() const {
    return model_bytes + activation_bytes + input_bytes + context_bytes;
  }
};

// The trainable parameters of the model, exactly as hpo-trainer builds it
// (weight-normalized convolutions have a gain per output channel).
int64_t count_params(const ModelShape& shape);

MemoryEstimate estimate_memory(const ModelShape& shape, bool on_gpu);

// Training FLOPs of one trial: 6 x params x lookback per sample (forward
// 2 per multiply-add, backward twice that; a convolution's weights act at
// every time step), times samples per epoch and epochs. An upper bound for
// the TCN, which computes fewer time steps in its upper blocks.
double training_flops(const ModelShape& shape, int64_t samples_per_epoch, int64_t epochs);

// The largest model a study can sample: for each of hidden_size, layers,
// kernel_size, lookback and batch_size, the largest value its distribution
// allows, else its fixed value, else the trainer's default. `model` comes
// from the fixed values. AMP follows the study's AMP_DTYPE (the trainer's
// default, bf16, when unset) and applies only `on_gpu`.
ModelShape worst_case_shape(const SearchSpaceConfig& space,
                            const std::vector<std::pair<std::string, std::string>>& env,
                            bool on_gpu);

// The fixed integer value `name`, or `fallback`.
int64_t fixed_int(const FixedValues& fixed, const std::string& name, int64_t fallback);

// The machine's physical memory, in bytes: what CPU trials share.
double host_memory_bytes();

// "1.5 GB", "512 MB": bytes in powers of 1024, for messages.
std::string format_bytes(double bytes);

}  // namespace hpo

#endif  // HPO_GPU_MEMORY_ESTIMATE_H_
