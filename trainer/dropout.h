// Dropout with a fast mask on the CPU.
#ifndef HPO_TRAINER_DROPOUT_H_
#define HPO_TRAINER_DROPOUT_H_

#include <torch/torch.h>

#include <cstddef>
#include <cstdint>

namespace hpo::trainer {

// Fills mask[0, n) with 0 (probability p) or 1 / (1 - p), from `seed` alone:
// xoshiro256** seeded by SplitMix64, two elements per 64-bit draw.
void fill_dropout_mask(float* mask, size_t n, double p, uint64_t seed);

// torch::nn::Dropout's function: in training, each element is zeroed with
// probability p and the rest scaled by 1 / (1 - p); in eval, the identity.
// LibTorch's CPU dropout draws every element's Bernoulli from the global
// mt19937 one at a time, which took 6% of a CPU training step. Here each
// call draws one 64-bit seed from that same generator, so torch::manual_seed
// and a checkpoint's saved generator state still fix every mask, and the
// mask is filled by fill_dropout_mask. Other devices and dtypes use
// LibTorch's dropout.
class FastDropoutImpl : public torch::nn::Module {
 public:
  explicit FastDropoutImpl(double p) : p_(p) {}
  torch::Tensor forward(const torch::Tensor& x);

 private:
  double p_;
};
TORCH_MODULE(FastDropout);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_DROPOUT_H_
