#include "samplers/acquisition_optimizer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "samplers/bounded_minimize.h"
#include "samplers/uniform.h"

namespace hpo {

namespace {

// Grids up to this size are searched whole; larger ones at doubling
// distances from the current point, so a 1..100000 int costs ~34 tries.
constexpr size_t kExhaustiveGrid = 32;
constexpr double kMinGain = 1e-9;

std::vector<Eigen::Index> continuous_dims(const GpSpace& space) {
  std::vector<Eigen::Index> out;
  for (size_t d = 0; d < space.size(); ++d) {
    if (space.dims()[d].kind == GpDimKind::kContinuous) out.push_back(static_cast<Eigen::Index>(d));
  }
  return out;
}

// L-BFGS-B over the continuous coordinates of x, the others held.
double continuous_step(const Acquisition& acquisition, const std::vector<Eigen::Index>& dims,
                       Eigen::VectorXd& x, double value, int iterations) {
  if (dims.empty()) return value;
  const auto n = static_cast<Eigen::Index>(dims.size());
  Eigen::VectorXd u(n);
  for (Eigen::Index i = 0; i < n; ++i) u[i] = x[dims[static_cast<size_t>(i)]];
  Eigen::VectorXd full = x, full_gradient;
  const Objective negated = [&](const Eigen::VectorXd& v, Eigen::VectorXd& grad) {
    for (Eigen::Index i = 0; i < n; ++i) full[dims[static_cast<size_t>(i)]] = v[i];
    const double a = acquisition.point(full, &full_gradient);
    for (Eigen::Index i = 0; i < n; ++i) grad[i] = -full_gradient[dims[static_cast<size_t>(i)]];
    return -a;
  };
  const double best =
      -bounded_minimize(negated, u, Eigen::VectorXd::Zero(n), Eigen::VectorXd::Ones(n), iterations);
  if (!(best > value)) return value;  // keep x: the solver found nothing better
  for (Eigen::Index i = 0; i < n; ++i) x[dims[static_cast<size_t>(i)]] = u[i];
  return best;
}

// The coordinates a local search tries for dimension `dim` from `current`.
std::vector<double> neighbours(const GpDim& dim, double current) {
  std::vector<double> out;
  if (dim.kind == GpDimKind::kCategorical) {
    for (int c = 0; c < dim.choices; ++c) out.push_back(c);
    return out;
  }
  if (dim.points.size() <= kExhaustiveGrid) return dim.points;
  const auto at =
      static_cast<int64_t>(std::min_element(dim.points.begin(), dim.points.end(),
                                            [current](double a, double b) {
                                              return std::abs(a - current) < std::abs(b - current);
                                            }) -
                           dim.points.begin());
  const auto size = static_cast<int64_t>(dim.points.size());
  for (int64_t step = 1; step < size; step *= 2) {
    if (at - step >= 0) out.push_back(dim.points[static_cast<size_t>(at - step)]);
    if (at + step < size) out.push_back(dim.points[static_cast<size_t>(at + step)]);
  }
  return out;
}

// One pass of coordinate-wise local search over the non-continuous dims;
// `moved` says whether a coordinate changed.
double discrete_step(const Acquisition& acquisition, const GpSpace& space, Eigen::VectorXd& x,
                     double value, bool& moved) {
  moved = false;
  for (size_t d = 0; d < space.size(); ++d) {
    const GpDim& dim = space.dims()[d];
    if (dim.kind == GpDimKind::kContinuous) continue;
    const auto i = static_cast<Eigen::Index>(d);
    const std::vector<double> candidates = neighbours(dim, x[i]);
    if (candidates.empty()) continue;
    Eigen::MatrixXd trials = x.replicate(1, static_cast<Eigen::Index>(candidates.size()));
    trials.row(i) = Eigen::Map<const Eigen::RowVectorXd>(candidates.data(), trials.cols());
    const Eigen::VectorXd scores = acquisition.batch(trials);
    Eigen::Index best = 0;
    scores.maxCoeff(&best);  // the first of equal maxima
    if (scores[best] > value + kMinGain) {
      value = scores[best];
      x[i] = candidates[static_cast<size_t>(best)];
      moved = true;
    }
  }
  return value;
}

double local_search(const Acquisition& acquisition, const GpSpace& space,
                    const AcquisitionSearch& search, Eigen::VectorXd& x) {
  const auto dims = continuous_dims(space);
  double value = acquisition.point(x, nullptr);
  for (int round = 0; round < search.max_rounds; ++round) {
    const double before = value;
    value = continuous_step(acquisition, dims, x, value, search.lbfgs_iterations);
    bool moved = false;
    value = discrete_step(acquisition, space, x, value, moved);
    // Unmoved, x is the continuous step's optimum for discrete coordinates
    // that no single change improves: another round would repeat this one.
    if (!moved || !(value > before + kMinGain)) break;
  }
  return value;
}

}  // namespace

AcquisitionSearch acquisition_search(Eigen::Index observed) {
  constexpr Eigen::Index kScreenWork = 51200, kMinScreen = 128;
  AcquisitionSearch search;
  const Eigen::Index points = kScreenWork / std::max<Eigen::Index>(observed, 1);
  search.random_points = static_cast<int>(
      std::clamp<Eigen::Index>(points, kMinScreen, Eigen::Index{search.random_points}));
  return search;
}

Eigen::VectorXd random_point(const GpSpace& space, std::mt19937_64& rng) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(space.size()));
  for (size_t d = 0; d < space.size(); ++d) {
    const GpDim& dim = space.dims()[d];
    double v = uniform01(rng);
    if (dim.kind == GpDimKind::kDiscrete) v = dim.points[uniform_index(rng, dim.points.size())];
    if (dim.kind == GpDimKind::kCategorical)
      v = static_cast<double>(uniform_index(rng, static_cast<size_t>(dim.choices)));
    x[static_cast<Eigen::Index>(d)] = v;
  }
  return x;
}

Eigen::VectorXd maximize_acquisition(const Acquisition& acquisition, const GpSpace& space,
                                     const std::vector<Eigen::VectorXd>& incumbents,
                                     std::mt19937_64& rng, const AcquisitionSearch& search) {
  Eigen::MatrixXd raw(static_cast<Eigen::Index>(space.size()), search.random_points);
  for (Eigen::Index i = 0; i < raw.cols(); ++i) raw.col(i) = random_point(space, rng);
  const Eigen::VectorXd scores = raw.cols() > 0 ? acquisition.batch(raw) : Eigen::VectorXd();
  std::vector<Eigen::Index> order(static_cast<size_t>(raw.cols()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return scores[a] > scores[b]; });

  std::vector<Eigen::VectorXd> starts = incumbents;
  for (size_t i = 0; i < order.size() && i < static_cast<size_t>(search.random_starts); ++i)
    starts.push_back(raw.col(order[i]));
  Eigen::VectorXd best = starts.empty() ? random_point(space, rng) : starts.front();
  double best_value = -HUGE_VAL;
  for (Eigen::VectorXd x : starts) {
    const double value = local_search(acquisition, space, search, x);
    if (value > best_value) {
      best_value = value;
      best = x;
    }
  }
  return best;
}

}  // namespace hpo
