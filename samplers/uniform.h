// Uniform draws from the samplers' generator, made from its bits by hand:
// std::uniform_real_distribution and std::generate_canonical differ between
// standard libraries (and generate_canonical may return 1.0), and a seeded
// study must suggest the same values wherever it runs.
#ifndef HPO_SAMPLERS_UNIFORM_H_
#define HPO_SAMPLERS_UNIFORM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>

namespace hpo {

// A double in [0, 1) from 53 random bits.
inline double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// The cell of [0, 1) cut into n > 0 equal cells that holds u in [0, 1).
inline int64_t unit_index(double u, int64_t n) {
  return std::min<int64_t>(n - 1, static_cast<int64_t>(u * static_cast<double>(n)));
}

// An index in [0, n), n > 0.
inline size_t uniform_index(std::mt19937_64& rng, size_t n) {
  return static_cast<size_t>(unit_index(uniform01(rng), static_cast<int64_t>(n)));
}

}  // namespace hpo

#endif  // HPO_SAMPLERS_UNIFORM_H_
