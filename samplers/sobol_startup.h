// Space-filling startup points: a scrambled Sobol sequence (Boost.Random's
// `sobol`) mapped onto a search space.
//
// Trial `number` gets point `number` of the sequence, so its point depends
// only on (seed, number, space): a resumed study, parallel workers and other
// hosts (which hold distinct trial numbers) draw the same, distinct points,
// and trials 0..2^k-1 stratify every coordinate into 2^k equal cells.
//
// Each seed scrambles the sequence differently (a random linear matrix
// scramble and a random digital shift per coordinate, Matoušek 1998), which
// keeps the stratification and moves point 0 off the corner.
//
// Coordinate j is parameter j of the space; it maps to the parameter's
// distribution as random_sampler.h's from_unit does: uniform in value, in
// log-value for log parameters, over grid points, over choices. Every
// parameter gets its coordinate, active or not; the caller drops the
// parameters whose condition fails (startup.h uses random draws for
// mostly conditional spaces instead).
#ifndef HPO_SAMPLERS_SOBOL_STARTUP_H_
#define HPO_SAMPLERS_SOBOL_STARTUP_H_

#include <cstdint>
#include <vector>

#include "samplers/sampler.h"

namespace hpo {

// Point `number` of the scrambled sequence of `dimension` coordinates in
// [0, 1). Coordinates past Boost's table (thousands) are pseudo-random.
std::vector<double> sobol_unit_point(uint64_t seed, int number, size_t dimension);

// Internal values for every parameter of `space`, inactive ones included.
ParamValues sobol_point(const SearchSpace& space, uint64_t seed, int number);

}  // namespace hpo

#endif  // HPO_SAMPLERS_SOBOL_STARTUP_H_
