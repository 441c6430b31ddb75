#include "samplers/sampler.h"

namespace hpo {

uint64_t Sampler::trial_seed(int number, uint64_t salt) const {
  uint64_t z = seed_ ^ (0x9E3779B97F4A7C15ULL * (static_cast<uint64_t>(number) + 1)) ^
               (salt * 0xD1B54A32D192ED03ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace hpo
