#include "trainer/dropout.h"

#include <ATen/CPUGeneratorImpl.h>

#include <mutex>

namespace hpo::trainer {

namespace {

uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// xoshiro256** (Blackman and Vigna, 2018): fast, and good in every bit.
class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed) {
    for (uint64_t& word : s_) word = splitmix64(&seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 private:
  uint64_t s_[4];
};

// One draw from LibTorch's default CPU generator, under its lock.
uint64_t seed_from_torch() {
  at::Generator gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return at::check_generator<at::CPUGeneratorImpl>(gen)->random64();
}

}  // namespace

void fill_dropout_mask(float* mask, size_t n, double p, uint64_t seed) {
  Xoshiro256 rng(seed);
  // An element is kept when its 32 random bits are at least p * 2^32.
  const uint64_t threshold = uint64_t(p * 4294967296.0);
  const float scale = float(1.0 / (1.0 - p));
  size_t i = 0;
  for (; i + 1 < n; i += 2) {
    const uint64_t r = rng.next();
    mask[i] = (r & 0xffffffffULL) >= threshold ? scale : 0.0f;
    mask[i + 1] = (r >> 32) >= threshold ? scale : 0.0f;
  }
  if (i < n) mask[i] = (rng.next() & 0xffffffffULL) >= threshold ? scale : 0.0f;
}

torch::Tensor FastDropoutImpl::forward(const torch::Tensor& x) {
  if (!is_training() || p_ == 0) return x;
  if (!x.device().is_cpu() || x.scalar_type() != torch::kFloat32 || p_ >= 1)
    return torch::dropout(x, p_, /*train=*/true);
  // empty_like keeps x's layout (channels-last included) and is dense, so
  // the mask can be filled as flat memory: its elements are exchangeable.
  torch::Tensor mask = torch::empty_like(x, x.options().requires_grad(false));
  fill_dropout_mask(mask.data_ptr<float>(), size_t(mask.numel()), p_, seed_from_torch());
  return x * mask;
}

}  // namespace hpo::trainer
