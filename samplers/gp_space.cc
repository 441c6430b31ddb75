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

// Grids larger than this are searched as continuous and rounded: a grid's
// points are stored, and an int parameter may span billions.
constexpr int64_t kMaxGridPoints = 1024;

void add_grid(GpDim& dim, double low, double high, double step, bool log) {
  const auto n = static_cast<int64_t>(std::llround((high - low) / step)) + 1;
  dim.low = low;
  dim.high = high;
  dim.log = log;
  if (n > kMaxGridPoints) {
    dim.kind = GpDimKind::kContinuous;
    dim.step = step;
    return;
  }
  dim.kind = GpDimKind::kDiscrete;
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
    dim.low = f->low;
    dim.high = f->high;
    dim.log = f->log;
    if (f->step) add_grid(dim, f->low, f->high, *f->step, false);
    return dim;
  }
  if (const auto* i = std::get_if<IntDistribution>(&param.distribution)) {
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
      coordinate = unit(v, dim.low, dim.high, dim.log);
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
  x = std::clamp(x, 0.0, 1.0);
  double v = dim.low + x * (dim.high - dim.low);
  if (dim.log) {
    const double log_low = std::log(dim.low);
    v = std::exp(log_low + x * (std::log(dim.high) - log_low));
  }
  if (dim.step > 0) v = dim.low + std::round((v - dim.low) / dim.step) * dim.step;
  return std::clamp(v, dim.low, dim.high);
}

}  // namespace hpo
