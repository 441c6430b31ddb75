#include "samplers/sampler.h"

#include "samplers/mo_sampler_names.h"

namespace hpo {

uint64_t Sampler::trial_seed(int number, uint64_t salt) const {
  uint64_t z = seed_ ^ (0x9E3779B97F4A7C15ULL * (static_cast<uint64_t>(number) + 1)) ^
               (salt * 0xD1B54A32D192ED03ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

const std::vector<std::string>& sampler_names() {
  static const std::vector<std::string> names = {"random", "tpe", "gp"};
  return names;
}

const std::vector<std::string>& multi_objective_sampler_names() {
  static const std::vector<std::string> names = {"auto", "nsga2", "random", "tpe"};
  return names;
}

}  // namespace hpo
