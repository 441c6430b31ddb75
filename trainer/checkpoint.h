// Checkpoints: model, optimizer, RNG and loop position in one file,
// written to a temporary name and renamed, so a crash or SIGTERM never
// leaves a torn checkpoint.pt behind.
#ifndef HPO_TRAINER_CHECKPOINT_H_
#define HPO_TRAINER_CHECKPOINT_H_

#include <torch/torch.h>

#include <limits>
#include <string>
#include <vector>

namespace hpo::trainer {

// Where the training loop is, and what it has learned about the best epoch.
struct LoopState {
  int64_t epoch = 0;  // the epoch to run next (or to continue)
  int64_t batch = 0;  // the next batch within that epoch
  int64_t step = 0;  // optimizer steps so far (drives the LR schedule)
  int64_t best_epoch = -1;
  int64_t bad_epochs = 0;  // epochs since the best one (early stopping)
  double best_val_rank_ic = -std::numeric_limits<double>::infinity();
  double epoch_loss_sum = 0;  // the current epoch's train loss so far
  int64_t epoch_loss_count = 0;
  std::vector<double> best_val;  // the best epoch's validation scores
  std::vector<torch::Tensor> best_weights;  // its parameters and buffers, on CPU
};

// The model's parameters and buffers, in a fixed order.
std::vector<torch::Tensor> model_state(const torch::nn::Module& model);

// `config` is the run's config_text(), recorded so that a resume can refuse a
// checkpoint of another config. With `cuda_rng`, the state of CUDA device 0's
// generator (dropout draws from it when training there) is saved too.
void save_checkpoint(const std::string& path, const torch::nn::Module& model,
                     const torch::optim::Optimizer& optimizer, const LoopState& state,
                     const std::string& config, bool cuda_rng = false);

// The config_text() the checkpoint was written for; empty when it records
// none (written before checkpoints recorded their config).
std::string checkpoint_config(const std::string& path);

// Restores the model, the loop state and the CPU RNG (with `cuda_rng`, also
// CUDA's, where the checkpoint has it). Call while the model is still on the
// CPU; the optimizer is restored separately, once it exists on the training
// device.
LoopState load_checkpoint(const std::string& path, torch::nn::Module& model, bool cuda_rng = false);
void load_optimizer(const std::string& path, torch::optim::Optimizer& optimizer,
                    const torch::Device& device);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_CHECKPOINT_H_
