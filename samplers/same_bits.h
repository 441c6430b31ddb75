// Bitwise equality of two Eigen arrays of doubles: equal bits are the same
// input (NaN included); -0.0 against 0.0 counts as different.
#ifndef HPO_SAMPLERS_SAME_BITS_H_
#define HPO_SAMPLERS_SAME_BITS_H_

#include <cstddef>
#include <cstring>

namespace hpo {

template <typename Array>
bool same_bits(const Array& a, const Array& b) {
  // An empty array has no data pointer, which memcmp must not be given.
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         (a.size() == 0 ||
          std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0);
}

}  // namespace hpo

#endif  // HPO_SAMPLERS_SAME_BITS_H_
