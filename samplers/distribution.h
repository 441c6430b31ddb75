// The domain of one search-space parameter, mirroring Optuna's three
// distributions so that studies round-trip through Optuna's database.
//
// Every sampled value also has an "internal" form, a double, exactly as
// Optuna stores it in trial_params.param_value: the number itself for float
// and int parameters, the index of the choice for categorical ones.
#ifndef HPO_SAMPLERS_DISTRIBUTION_H_
#define HPO_SAMPLERS_DISTRIBUTION_H_

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "samplers/param_value.h"

namespace hpo {

struct FloatDistribution {
  double low = 0.0;
  double high = 1.0;
  bool log = false;
  std::optional<double> step;  // a grid low, low+step, ..., high; never with log
};

struct IntDistribution {
  int64_t low = 0;
  int64_t high = 1;
  bool log = false;
  int64_t step = 1;  // must be 1 when log is set
};

struct CategoricalDistribution {
  std::vector<ParamValue> choices;
};

using Distribution = std::variant<FloatDistribution, IntDistribution, CategoricalDistribution>;

bool operator==(const FloatDistribution& a, const FloatDistribution& b);
bool operator==(const IntDistribution& a, const IntDistribution& b);
bool operator==(const CategoricalDistribution& a, const CategoricalDistribution& b);

// The user-facing value of an internal representation.
ParamValue to_external(const Distribution& dist, double internal);

// The internal representation of a user-facing value; throws
// std::invalid_argument when the value is outside the distribution.
double to_internal(const Distribution& dist, const ParamValue& value);

// Whether an internal value lies in the distribution (bounds, grid, index).
bool contains(const Distribution& dist, double internal);

// True for categoricals whose choices are all numbers (batch sizes, widths):
// their order carries information a sampler may use.
bool is_ordered_numeric(const CategoricalDistribution& dist);

}  // namespace hpo

#endif  // HPO_SAMPLERS_DISTRIBUTION_H_
