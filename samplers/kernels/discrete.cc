#include "samplers/kernels/discrete.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "samplers/truncnorm.h"

namespace hpo {

namespace {

struct MuSigma {
  double mu, sigma;
  bool operator==(const MuSigma& o) const { return mu == o.mu && sigma == o.sigma; }
};

struct MuSigmaHash {
  size_t operator()(const MuSigma& k) const {
    return std::hash<double>()(k.mu) * 31 + std::hash<double>()(k.sigma);
  }
};

// -1 slots: see fit_slots.
Eigen::ArrayXi half_step_slots(const Eigen::ArrayXd& mus, const KernelDim& space, int& n_slots) {
  const double first = space.low + 0.5 * space.q;
  const double n_points = std::round((space.high - space.low) / space.q);
  if (space.q == 0 || n_points > 4.0 * static_cast<double>(mus.size()) + 64) return {};
  n_slots = 2 * static_cast<int>(n_points) - 1;
  Eigen::ArrayXi slot(mus.size());
  for (Eigen::Index i = 0; i < mus.size(); ++i) {
    // floor(v + 0.5) clamped to the slots: clamped first, v is at least 0
    // and floor is the cast's truncation (without SSE4.1 floor is a call;
    // this loop runs over every kernel).
    slot(i) = static_cast<int>(
        std::clamp(2 * (mus(i) - first) / space.q + 0.5, 0.0, static_cast<double>(n_slots - 1)));
  }
  return slot;
}

// The number of points on the grid.
int grid_points(const KernelDim& space) {
  return space.q > 0 ? static_cast<int>(std::round((space.high - space.low) / space.q)) : 0;
}

// The grid's i-th point, as precomputed: the first plus i steps.
double grid_point(const KernelDim& space, int i) { return space.low + 0.5 * space.q + i * space.q; }

// The point whose value is exactly x, or -1: a candidate elsewhere (a value
// off the grid by a rounding) gets its masses computed, not a neighbour's.
int point_of(const KernelDim& space, double x) {
  const double i = std::round((x - space.low) / space.q - 0.5);
  if (!(i >= 0 && i < grid_points(space))) return -1;
  return grid_point(space, static_cast<int>(i)) == x ? static_cast<int>(i) : -1;
}

// The log mass of x's grid cell under the kernel (mu, s), less the
// kernel's mass over the domain (`log_mass`).
double cell_log_mass(const KernelDim& space, double x, double mu, double s, double log_mass) {
  const double half = 0.5 * space.q;
  const double lo = std::max(x - half, space.low), hi = std::min(x + half, space.high);
  return truncnorm::log_gauss_mass((lo - mu) / s, (hi - mu) / s) - log_mass;
}

}  // namespace

// On a grid there are few distinct values: counting them is much faster
// than sorting thousands of ties.
std::vector<int> sorted_by_value(const Eigen::ArrayXd& mus, const Eigen::ArrayXi& slot,
                                 int n_slots) {
  const size_t n = static_cast<size_t>(mus.size());
  std::vector<int> order(n);
  if (slot.size() == 0) {
    std::vector<std::pair<double, int>> pairs(n);
    for (size_t i = 0; i < n; ++i)
      pairs[i] = {mus(static_cast<Eigen::Index>(i)), static_cast<int>(i)};
    std::sort(pairs.begin(), pairs.end());
    for (size_t i = 0; i < n; ++i) order[i] = pairs[i].second;
    return order;
  }
  std::vector<size_t> start(static_cast<size_t>(n_slots) + 1, 0);
  for (size_t i = 0; i < n; ++i)
    ++start[static_cast<size_t>(slot(static_cast<Eigen::Index>(i))) + 1];
  for (size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
  for (size_t i = 0; i < n; ++i)
    order[start[static_cast<size_t>(slot(static_cast<Eigen::Index>(i)))]++] = static_cast<int>(i);
  return order;
}

void GridKernels::fit_slots(const Eigen::ArrayXd& mus, const KernelDim& space) {
  slot = half_step_slots(mus, space, n_slots);
}

void GridKernels::group_kernels(const Eigen::ArrayXd& mus, const Eigen::ArrayXd& sigmas,
                                const KernelDim& space, const GridKernels* before) {
  // A grid's kernels share few means, and each mean few bandwidths: chain
  // the groups per mean.
  const Eigen::Index n = mus.size();
  std::vector<int> head(static_cast<size_t>(std::max(n_slots, 1)), -1), next;
  std::vector<int> recent(head.size(), -1);  // per slot, the group of its last kernel
  std::unordered_map<MuSigma, int, MuSigmaHash> hashed;  // for grids too fine to chain
  std::vector<double> g_mus, g_sigmas;
  group.resize(n);
  // The group of kernel k, found among those met so far or added.
  auto find = [&](Eigen::Index k) {
    const double mu = mus(k), sigma = sigmas(k);
    int g = -1;
    if (slot.size() == 0) {
      g = hashed.emplace(MuSigma{mu, sigma}, static_cast<int>(g_mus.size())).first->second;
    } else {
      int& first = head[static_cast<size_t>(slot(k))];
      for (g = first; g >= 0 && !(g_mus[static_cast<size_t>(g)] == mu &&
                                  g_sigmas[static_cast<size_t>(g)] == sigma);) {
        g = next[static_cast<size_t>(g)];
      }
      if (g < 0) {
        next.push_back(first);
        first = static_cast<int>(g_mus.size());
        g = first;
      }
    }
    if (g == static_cast<int>(g_mus.size())) {
      g_mus.push_back(mu);
      g_sigmas.push_back(sigma);
    }
    return g;
  };
  int* out = group.data();
  if (slot.size() == 0) {
    for (Eigen::Index k = 0; k < n; ++k) out[k] = find(k);
    finish_groups(g_mus, g_sigmas, space, before);
    return;
  }
  // Most kernels of a slot share the group of the slot's last kernel (on a
  // grid, all but the ends of a run of ties): checked first, through plain
  // pointers, since this loop runs over every kernel.
  const double *mu_of = mus.data(), *sigma_of = sigmas.data();
  const int* slot_of = slot.data();
  int* cached = recent.data();
  for (Eigen::Index k = 0; k < n; ++k) {
    const int s = slot_of[k], g = cached[s];
    if (g >= 0 && g_mus.data()[g] == mu_of[k] && g_sigmas.data()[g] == sigma_of[k]) {
      out[k] = g;
    } else {
      out[k] = cached[s] = find(k);
    }
  }
  finish_groups(g_mus, g_sigmas, space, before);
}

void GridKernels::finish_groups(const std::vector<double>& g_mus,
                                const std::vector<double>& g_sigmas, const KernelDim& space,
                                const GridKernels* before) {
  group_mu =
      Eigen::Map<const Eigen::ArrayXd>(g_mus.data(), static_cast<Eigen::Index>(g_mus.size()));
  group_sigma =
      Eigen::Map<const Eigen::ArrayXd>(g_sigmas.data(), static_cast<Eigen::Index>(g_sigmas.size()));
  group_log_mass.resize(group_mu.size());
  for (Eigen::Index g = 0; g < group_mu.size(); ++g) {
    const double mu = group_mu(g), s = group_sigma(g);
    group_log_mass(g) = truncnorm::log_gauss_mass((space.low - mu) / s, (space.high - mu) / s);
  }
  point_log_mass.resize(0, 0);
  const int n_points = grid_points(space);
  if (n_points <= 0 || n_points > kPrecomputedPoints) return;
  point_log_mass.resize(group_mu.size(), n_points);
  // The earlier fit's groups by (mu, sigma), the first of equal ones: a
  // lookup per group, where a scan of them all per group grew as their
  // product.
  std::unordered_map<MuSigma, Eigen::Index, MuSigmaHash> old_rows;
  if (before && before->point_log_mass.cols() == n_points) {
    for (Eigen::Index b = 0; b < before->group_mu.size(); ++b)
      old_rows.emplace(MuSigma{before->group_mu(b), before->group_sigma(b)}, b);
  }
  for (Eigen::Index g = 0; g < group_mu.size(); ++g) {
    const double mu = group_mu(g), s = group_sigma(g);
    if (const auto old = old_rows.find(MuSigma{mu, s}); old != old_rows.end()) {
      point_log_mass.row(g) = before->point_log_mass.row(old->second);  // the same inputs
      continue;
    }
    for (int i = 0; i < n_points; ++i)
      point_log_mass(g, i) = cell_log_mass(space, grid_point(space, i), mu, s, group_log_mass(g));
  }
}

GridTable GridKernels::table(const KernelDim& space, const Eigen::ArrayXd& x) const {
  // A grid holds few values, and its kernels few distinct bandwidths.
  GridTable t;
  std::vector<double> values;
  t.value_of.resize(static_cast<size_t>(x.size()));
  for (Eigen::Index c = 0; c < x.size(); ++c) {
    auto it = std::find(values.begin(), values.end(), x(c));
    if (it == values.end()) it = values.insert(values.end(), x(c));
    t.value_of[static_cast<size_t>(c)] = static_cast<int>(it - values.begin());
  }
  const Eigen::Index n_groups = group_mu.size();
  t.log_mass.resize(n_groups, static_cast<Eigen::Index>(values.size()));
  for (size_t v = 0; v < values.size(); ++v) {
    const auto column = static_cast<Eigen::Index>(v);
    const int point = point_log_mass.size() > 0 ? point_of(space, values[v]) : -1;
    if (point >= 0) {
      t.log_mass.col(column) = point_log_mass.col(point);
      continue;
    }
    for (Eigen::Index g = 0; g < n_groups; ++g) {
      t.log_mass(g, column) =
          cell_log_mass(space, values[v], group_mu(g), group_sigma(g), group_log_mass(g));
    }
  }
  return t;
}

Eigen::ArrayXd GridKernels::pooled_log_weights(const Eigen::ArrayXd& w) const {
  Eigen::ArrayXd pooled = Eigen::ArrayXd::Zero(group_mu.size());
  for (Eigen::Index k = 0; k < w.size(); ++k) pooled(group(k)) += w(k);
  return pooled.log();
}

}  // namespace hpo
