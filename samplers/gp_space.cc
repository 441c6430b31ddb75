#include "samplers/gp_space.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hpo {

namespace {

// Position of v in [low, high], in log space when `log`; 0 for a point.
double unit(double v, double low, double high, bool log) {
  if (log) {
    v = std::log(v);
    low = std::log(low);
    high = std::log(high);
  }
  return high > low ? (v - low) / (high - low) : 0.0;
}

void add_grid(GpDim& dim, double low, double high, double step, bool log) {
  const auto n = static_cast<int64_t>(std::llround((high - low) / step)) + 1;
  for (int64_t i = 0; i < n; ++i) {
    const double v = std::min(high, low + static_cast<double>(i) * step);
    dim.internal.push_back(v);
    dim.points.push_back(unit(v, low, high, log));
  }
}

GpDim make_dim(const ParamSpec& param) {
  GpDim dim;
  dim.name = param.name;
  dim.distribution = param.distribution;
  if (const auto* f = std::get_if<FloatDistribution>(&param.distribution)) {
    if (f->step) {
      dim.kind = GpDimKind::kDiscrete;
      add_grid(dim, f->low, f->high, *f->step, false);
    }
    return dim;
  }
  if (const auto* i = std::get_if<IntDistribution>(&param.distribution)) {
    dim.kind = GpDimKind::kDiscrete;
    add_grid(dim, static_cast<double>(i->low), static_cast<double>(i->high),
             static_cast<double>(i->step), i->log);
    return dim;
  }
  const auto& c = std::get<CategoricalDistribution>(param.distribution);
  dim.choices = static_cast<int>(c.choices.size());
  if (!is_ordered_numeric(c) || c.choices.size() < 2) {
    dim.kind = GpDimKind::kCategorical;
    return dim;
  }
  // Ranks by value, equally spaced: batch sizes 16, 32, 64 are as far apart
  // as their doublings are.
  dim.kind = GpDimKind::kDiscrete;
  std::vector<int> order(c.choices.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return as_double(c.choices[static_cast<size_t>(a)]) <
           as_double(c.choices[static_cast<size_t>(b)]);
  });
  const double last = static_cast<double>(order.size() - 1);
  for (size_t rank = 0; rank < order.size(); ++rank) {
    dim.internal.push_back(order[rank]);
    dim.points.push_back(static_cast<double>(rank) / last);
  }
  return dim;
}

}  // namespace

GpSpace::GpSpace(const SearchSpace& space) {
  for (const auto& param : space) {
    if (!param.condition) dims_.push_back(make_dim(param));
  }
}

std::vector<bool> GpSpace::categorical() const {
  std::vector<bool> out;
  for (const auto& dim : dims_) out.push_back(dim.kind == GpDimKind::kCategorical);
  return out;
}

std::optional<Eigen::VectorXd> GpSpace::encode(const std::map<std::string, double>& params) const {
  Eigen::VectorXd x(static_cast<Eigen::Index>(dims_.size()));
  for (size_t d = 0; d < dims_.size(); ++d) {
    const GpDim& dim = dims_[d];
    const auto it = params.find(dim.name);
    if (it == params.end() || !contains(dim.distribution, it->second)) return std::nullopt;
    const double v = it->second;
    double coordinate = v;
    if (dim.kind == GpDimKind::kDiscrete) {
      // The grid point nearest the value (ints and steps are on the grid).
      const auto nearest =
          std::min_element(dim.internal.begin(), dim.internal.end(),
                           [v](double a, double b) { return std::abs(a - v) < std::abs(b - v); });
      coordinate = dim.points[static_cast<size_t>(nearest - dim.internal.begin())];
    } else if (dim.kind == GpDimKind::kContinuous) {
      const auto& f = std::get<FloatDistribution>(dim.distribution);
      coordinate = unit(v, f.low, f.high, f.log);
    }
    x[static_cast<Eigen::Index>(d)] = coordinate;
  }
  return x;
}

double GpSpace::decode(size_t d, double x) const {
  const GpDim& dim = dims_[d];
  if (dim.kind == GpDimKind::kCategorical) return std::round(x);
  if (dim.kind == GpDimKind::kDiscrete) {
    const auto nearest =
        std::min_element(dim.points.begin(), dim.points.end(),
                         [x](double a, double b) { return std::abs(a - x) < std::abs(b - x); });
    return dim.internal[static_cast<size_t>(nearest - dim.points.begin())];
  }
  const auto& f = std::get<FloatDistribution>(dim.distribution);
  x = std::clamp(x, 0.0, 1.0);
  if (f.log) {
    const double log_low = std::log(f.low);
    return std::clamp(std::exp(log_low + x * (std::log(f.high) - log_low)), f.low, f.high);
  }
  return std::clamp(f.low + x * (f.high - f.low), f.low, f.high);
}

}  // namespace hpo
