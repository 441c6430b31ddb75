// Constants the samplers' math shares. One definition, not one per file: the
// sanitizer build compiles several files as one (a unity build), where two
// file-local kInf would collide.
#ifndef HPO_SAMPLERS_NUMBERS_H_
#define HPO_SAMPLERS_NUMBERS_H_

#include <limits>

namespace hpo {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kSqrt5 = 2.23606797749978969641;

}  // namespace hpo

#endif  // HPO_SAMPLERS_NUMBERS_H_
