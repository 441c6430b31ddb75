#include "samplers/distribution.h"

#include <cmath>
#include <stdexcept>

namespace hpo {

namespace {

// Grid points are compared with a tolerance relative to the step, since
// low + k*step is rarely exact in binary floating point.
bool on_float_grid(const FloatDistribution& d, double v) {
  const double k = (v - d.low) / *d.step;
  return std::fabs(k - std::round(k)) <= 1e-8;
}

}  // namespace

bool operator==(const FloatDistribution& a, const FloatDistribution& b) {
  return a.low == b.low && a.high == b.high && a.log == b.log && a.step == b.step;
}

bool operator==(const IntDistribution& a, const IntDistribution& b) {
  return a.low == b.low && a.high == b.high && a.log == b.log && a.step == b.step;
}

bool operator==(const CategoricalDistribution& a, const CategoricalDistribution& b) {
  return a.choices == b.choices;
}

ParamValue to_external(const Distribution& dist, double internal) {
  if (std::holds_alternative<FloatDistribution>(dist)) return internal;
  if (std::holds_alternative<IntDistribution>(dist)) {
    return static_cast<int64_t>(std::llround(internal));
  }
  const auto& cat = std::get<CategoricalDistribution>(dist);
  const double index = std::round(internal);
  if (index < 0 || index >= static_cast<double>(cat.choices.size())) {
    throw std::out_of_range("categorical index " + std::to_string(internal) + " out of range");
  }
  return cat.choices[static_cast<size_t>(index)];
}

double to_internal(const Distribution& dist, const ParamValue& value) {
  if (const auto* cat = std::get_if<CategoricalDistribution>(&dist)) {
    for (size_t i = 0; i < cat->choices.size(); ++i) {
      if (same_value(cat->choices[i], value)) return static_cast<double>(i);
    }
    throw std::invalid_argument("'" + to_string(value) + "' is not one of the choices");
  }
  if (!is_numeric(value)) {
    throw std::invalid_argument("'" + to_string(value) + "' is not a number");
  }
  const double v = as_double(value);
  if (!contains(dist, v)) {
    throw std::invalid_argument(to_string(value) + " is outside the distribution");
  }
  return v;
}

bool contains(const Distribution& dist, double v) {
  if (std::isnan(v)) return false;
  if (const auto* f = std::get_if<FloatDistribution>(&dist)) {
    if (v < f->low || v > f->high) return false;
    return !f->step || on_float_grid(*f, v);
  }
  if (const auto* i = std::get_if<IntDistribution>(&dist)) {
    if (v != std::round(v) || v < static_cast<double>(i->low) || v > static_cast<double>(i->high)) {
      return false;
    }
    return (static_cast<int64_t>(v) - i->low) % i->step == 0;
  }
  const auto& cat = std::get<CategoricalDistribution>(dist);
  return v == std::round(v) && v >= 0 && v < static_cast<double>(cat.choices.size());
}

bool is_ordered_numeric(const CategoricalDistribution& dist) {
  if (dist.choices.empty()) return false;
  for (const auto& c : dist.choices) {
    if (!is_numeric(c)) return false;
  }
  return true;
}

}  // namespace hpo
