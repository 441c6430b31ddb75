#include "samplers/sobol_startup.h"

#include <algorithm>
#include <boost/random/sobol.hpp>
#include <random>

#include "samplers/random_sampler.h"

namespace hpo {

namespace {

constexpr int kBits = 64;

// Scrambles one coordinate's bits: output bit i (from the most significant)
// is the parity of input bit i and a random set of the more significant
// input bits (a lower-triangular matrix with a unit diagonal, so every
// elementary interval still holds its share of points), then XORed with a
// random shift.
class DigitalScramble {
 public:
  explicit DigitalScramble(std::mt19937_64& rng) : shift_(rng()) {
    for (int i = 0; i < kBits; ++i) {
      const uint64_t own = uint64_t{1} << (kBits - 1 - i);
      const uint64_t above = i == 0 ? 0 : ~((own << 1) - 1);  // more significant bits
      rows_[i] = own | (rng() & above);
    }
  }

  uint64_t operator()(uint64_t x) const {
    uint64_t y = 0;
    for (int i = 0; i < kBits; ++i) {
      const uint64_t parity = static_cast<uint64_t>(__builtin_parityll(x & rows_[i]));
      y |= parity << (kBits - 1 - i);
    }
    return y ^ shift_;
  }

 private:
  uint64_t shift_;
  uint64_t rows_[kBits];
};

double unit(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace

std::vector<double> sobol_unit_point(uint64_t seed, int number, size_t dimension) {
  std::vector<double> out(dimension);
  if (dimension == 0) return out;
  // The scramble depends on the seed only, never on the trial: every trial
  // of a study shares it, so the points stay one scrambled sequence.
  std::mt19937_64 rng(seed ^ 0x50B0150B01ULL);
  const size_t sobol_dims =
      std::min<size_t>(dimension, boost::random::default_sobol_table::max_dimension);
  boost::random::sobol engine(sobol_dims);
  // Boost's sequence leaves out its first point, zero: trial 0 takes it, so
  // that trials 0..2^k-1 are the whole net, one point in each cell.
  if (number > 0) engine.seed(static_cast<uint64_t>(number) - 1);
  for (size_t j = 0; j < sobol_dims; ++j) {
    const uint64_t bits = number > 0 ? engine() : 0;
    out[j] = unit(DigitalScramble(rng)(bits));
  }
  // Beyond the table: independent draws for this trial.
  std::mt19937_64 rest(seed ^ (0x9E3779B97F4A7C15ULL * (static_cast<uint64_t>(number) + 1)));
  for (size_t j = sobol_dims; j < dimension; ++j) out[j] = unit(rest());
  return out;
}

ParamValues sobol_point(const SearchSpace& space, uint64_t seed, int number) {
  const auto u = sobol_unit_point(seed, number, space.size());
  ParamValues values;
  for (size_t j = 0; j < space.size(); ++j)
    values[space[j].name] = from_unit(space[j].distribution, u[j]);
  return values;
}

}  // namespace hpo
