#include "samplers/kernels/neighbour_gaps.h"

#include <algorithm>

namespace hpo {

namespace {

// One kernel's gap at `here` between its sorted neighbours; `first` and
// `last`: its place in the whole order. Both functions below use this
// expression, so they round alike.
double gap(double before, double here, double after, bool first, bool last, bool endpoints,
           Eigen::Index n) {
  double s = std::max(here - before, after - here);
  if (!endpoints && n >= 2) {
    if (first) s = after - here;
    if (last) s = here - before;
  }
  return s;
}

}  // namespace

Eigen::ArrayXd neighbour_gaps(const Eigen::ArrayXd& mus, const std::vector<int>& order, double low,
                              double high, bool endpoints) {
  const Eigen::Index n = mus.size();
  Eigen::ArrayXd sigma(n);
  // The sorted means in a window (before, here, after), the domain's ends
  // outside them.
  double before = low, here = n > 0 ? mus(order[0]) : high;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double after = i + 1 < n ? mus(order[static_cast<size_t>(i + 1)]) : high;
    sigma(order[static_cast<size_t>(i)]) =
        gap(before, here, after, i == 0, i == n - 1, endpoints, n);
    before = here;
    here = after;
  }
  return sigma;
}

Eigen::ArrayXd grid_neighbour_gaps(const Eigen::ArrayXd& mus, const Eigen::ArrayXi& slot,
                                   int n_slots, double low, double high, bool endpoints) {
  const Eigen::Index n = mus.size();
  if (slot.size() != n) return {};
  // Each slot's run of kernels in index order, as sorted_by_value has it:
  // its first and last kernel.
  std::vector<int> first(static_cast<size_t>(n_slots), -1), last(static_cast<size_t>(n_slots));
  // Plain pointers: this loop runs over every kernel.
  const double* mu = mus.data();
  const int* slot_of = slot.data();
  int *first_of = first.data(), *last_of = last.data();
  for (Eigen::Index k = 0; k < n; ++k) {
    const int s = slot_of[k];
    if (first_of[s] < 0) {
      first_of[s] = static_cast<int>(k);
    } else if (mu[k] != mu[first_of[s]]) {
      return {};
    }
    last_of[s] = static_cast<int>(k);
  }
  std::vector<size_t> runs;
  for (size_t s = 0; s < first.size(); ++s) {
    if (first[s] >= 0) runs.push_back(s);
  }
  // Inside a run x - x is +0 on both sides: gap 0, as the general rule gives.
  Eigen::ArrayXd sigma = Eigen::ArrayXd::Zero(n);
  for (size_t r = 0; r < runs.size(); ++r) {
    const int a = first[runs[r]], b = last[runs[r]];
    const double here = mus(a);
    const double before = r > 0 ? mus(first[runs[r - 1]]) : low;
    const double after = r + 1 < runs.size() ? mus(first[runs[r + 1]]) : high;
    const bool end = r + 1 == runs.size();
    if (a == b) {
      sigma(a) = gap(before, here, after, r == 0, end, endpoints, n);
    } else {
      sigma(a) = gap(before, here, here, r == 0, false, endpoints, n);
      sigma(b) = gap(here, here, after, false, end, endpoints, n);
    }
  }
  return sigma;
}

}  // namespace hpo
