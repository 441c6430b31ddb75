#include "tools/bench/warm_start/low_fidelity.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace hpo {

namespace {

uint64_t name_hash(const std::string& name) { return std::hash<std::string>{}(name); }

// `x` moved by `fraction` of the distribution's range, kept inside it and
// on its grid; categoricals stay as they are.
double shifted(const Distribution& d, double x, double fraction) {
  if (const auto* f = std::get_if<FloatDistribution>(&d)) {
    if (f->log) {
      const double lo = std::log(f->low), hi = std::log(f->high);
      return std::exp(std::clamp(std::log(x) + fraction * (hi - lo), lo, hi));
    }
    double y = std::clamp(x + fraction * (f->high - f->low), f->low, f->high);
    if (f->step) y = std::min(f->high, f->low + std::round((y - f->low) / *f->step) * *f->step);
    return y;
  }
  if (const auto* i = std::get_if<IntDistribution>(&d)) {
    const double lo = static_cast<double>(i->low), hi = static_cast<double>(i->high);
    double y = i->log ? std::exp(std::log(x) + fraction * (std::log(hi) - std::log(lo)))
                      : x + fraction * (hi - lo);
    y = std::clamp(y, lo, hi);
    const double step = static_cast<double>(i->step);
    return std::min(hi, lo + std::round((y - lo) / step) * step);
  }
  return x;
}

// The interquartile range of the problem's values over random points: a
// spread that heavy-tailed functions (Rosenbrock) do not blow up.
double spread(const BenchProblem& p) {
  std::vector<double> values;
  for (int i = 0; i < 64; ++i) values.push_back(p.score(shared_random(p.space, 777, i)));
  std::sort(values.begin(), values.end());
  return std::max(1e-12, values[48] - values[16]);
}

double gaussian(double u) {
  const double a = shared_unit(static_cast<uint64_t>(u * 9007199254740992.0), 1, 1);
  const double b = shared_unit(static_cast<uint64_t>(u * 9007199254740992.0), 2, 2);
  return std::sqrt(-2 * std::log(1 - a)) * std::cos(2 * 3.14159265358979323846 * b);
}

}  // namespace

BenchProblem low_fidelity(const BenchProblem& p) {
  BenchProblem low = p;
  low.name = p.name + "_low";
  std::vector<double> direction;
  for (size_t j = 0; j < p.space.size(); ++j)
    direction.push_back(shared_unit(name_hash(p.name), 0, j) < 0.5 ? -kShift : kShift);
  const double noise = kNoise * spread(p);
  const double offset = 0.3 * spread(p);
  low.call = [p, direction, noise, offset](const ParamValues& v, double u) {
    ParamValues moved = v;
    for (size_t j = 0; j < p.space.size(); ++j) {
      const auto it = moved.find(p.space[j].name);
      if (it != moved.end())
        it->second = shifted(p.space[j].distribution, it->second, direction[j]);
    }
    return kScale * p.call(moved, shared_unit(static_cast<uint64_t>(u * 1e15), 3, 3)) + offset +
           noise * gaussian(u);
  };
  return low;
}

}  // namespace hpo
