#include "samplers/hypervolume.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>

#include "samplers/numbers.h"

namespace hpo {

namespace {

using Point = std::vector<double>;

// Points that strictly dominate the reference, cut to its first `d` losses.
std::vector<Point> inside(const Losses& losses, const Point& reference) {
  std::vector<Point> out;
  for (const auto& p : losses) {
    bool in = true;
    for (size_t i = 0; i < reference.size(); ++i) in = in && p[i] < reference[i];
    if (in) out.push_back(p);
  }
  return out;
}

using Point2 = std::array<double, 2>;
using Point3 = std::array<double, 3>;

// 2-D: sorted by the first loss, each point adds the strip between its
// second loss and the best one seen before it.
double area(std::vector<Point2> points, double rx, double ry) {
  std::sort(points.begin(), points.end());
  double total = 0, best_y = ry;
  for (const auto& p : points) {
    if (p[1] >= best_y) continue;
    total += (rx - p[0]) * (best_y - p[1]);
    best_y = p[1];
  }
  return total;
}

// The staircase of non-dominated 2-D points (first loss ascending, second
// descending) and its area, kept as points are added one by one: each
// point adds the area it newly dominates, found among the steps it
// replaces, instead of the area summed anew for each of 3-D's slabs
// (O(n^2) in all). A sorted array: the staircases here hold a few dozen
// steps, where moving them costs less than a tree's allocations.
class Staircase {
 public:
  Staircase(double rx, double ry) : rx_(rx), ry_(ry) {}

  void add(double x, double y) {
    // The first step at or right of x.
    auto it = std::lower_bound(steps_.begin(), steps_.end(), std::make_pair(x, -kInf));
    // Dominated by the step before it (smaller x, y no larger) or at x.
    if (it != steps_.begin() && std::prev(it)->second <= y) return;
    if (it != steps_.end() && it->first == x && it->second <= y) return;
    // Left to right from x: the height covered so far, up to each step
    // this point covers (y no smaller), then up to the first it does not.
    double at = x, covered = it == steps_.begin() ? ry_ : std::prev(it)->second;
    auto end = it;
    for (; end != steps_.end() && end->second >= y; ++end) {
      area_ += (end->first - at) * (covered - y);
      at = end->first;
      covered = end->second;
    }
    area_ += ((end == steps_.end() ? rx_ : end->first) - at) * (covered - y);
    steps_.insert(steps_.erase(it, end), {x, y});
  }

  double area() const { return area_; }

 private:
  double rx_, ry_;
  std::vector<std::pair<double, double>> steps_;
  double area_ = 0;
};

// 3-D: sorted by the last loss, the slab between two consecutive points'
// last losses holds the staircase of all points up to the first of them.
double volume3(std::vector<Point3> points, const Point& ref) {
  std::sort(points.begin(), points.end(),
            [](const Point3& a, const Point3& b) { return a[2] < b[2]; });
  Staircase stairs(ref[0], ref[1]);
  double total = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    stairs.add(points[i][0], points[i][1]);
    const double next = i + 1 < points.size() ? points[i + 1][2] : ref[2];
    if (next > points[i][2]) total += stairs.area() * (next - points[i][2]);
  }
  return total;
}

// The points of `losses` inside the reference as fixed-size arrays: the
// 2-D and 3-D paths allocate once, not once per point.
template <size_t D>
std::vector<std::array<double, D>> inside_fixed(const Losses& losses, const Point& reference) {
  std::vector<std::array<double, D>> out;
  out.reserve(losses.size());
  for (const auto& p : losses) {
    std::array<double, D> q;
    bool in = true;
    for (size_t i = 0; i < D; ++i) {
      q[i] = p[i];
      in = in && p[i] < reference[i];
    }
    if (in) out.push_back(q);
  }
  return out;
}

double volume(std::vector<Point> points, const Point& ref);

// d > 3: slices along the last loss, each the (d-1)-volume of the points
// below it, non-dominated ones only (the rest add nothing).
double sliced(std::vector<Point> points, const Point& ref) {
  const size_t d = ref.size();
  std::sort(points.begin(), points.end(),
            [&](const Point& a, const Point& b) { return a[d - 1] < b[d - 1]; });
  const Point sub_ref(ref.begin(), ref.end() - 1);
  std::vector<Point> below;
  double total = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    Point p(points[i].begin(), points[i].end() - 1);
    const bool beaten = std::any_of(below.begin(), below.end(),
                                    [&](const Point& q) { return q == p || dominates(q, p); });
    if (!beaten) {
      below.erase(std::remove_if(below.begin(), below.end(),
                                 [&](const Point& q) { return dominates(p, q); }),
                  below.end());
      below.push_back(std::move(p));
    }
    const double next = i + 1 < points.size() ? points[i + 1][d - 1] : ref[d - 1];
    if (next > points[i][d - 1]) total += volume(below, sub_ref) * (next - points[i][d - 1]);
  }
  return total;
}

double volume(std::vector<Point> points, const Point& ref) {
  if (points.empty()) return 0;
  switch (ref.size()) {
    case 1: {
      double best = ref[0];
      for (const auto& p : points) best = std::min(best, p[0]);
      return ref[0] - best;
    }
    case 2:
      return area(inside_fixed<2>(points, ref), ref[0], ref[1]);
    case 3:
      return volume3(inside_fixed<3>(points, ref), ref);
    default:
      return sliced(std::move(points), ref);
  }
}

// One point's hypervolume, multiplied in the order the 2-D and 3-D paths
// multiply, so that it equals hypervolume({p}) exactly there.
double box_volume(const Point& p, const Point& reference) {
  if (reference.size() > 3) return hypervolume({p}, reference);
  double v = 1;
  for (size_t i = 0; i < reference.size(); ++i) {
    if (!(p[i] < reference[i])) return 0;
    v *= reference[i] - p[i];
  }
  return v;
}

}  // namespace

double hypervolume(const Losses& losses, const std::vector<double>& reference) {
  if (reference.size() == 2)
    return area(inside_fixed<2>(losses, reference), reference[0], reference[1]);
  if (reference.size() == 3) return volume3(inside_fixed<3>(losses, reference), reference);
  return volume(inside(losses, reference), reference);
}

std::vector<double> hypervolume_contributions(const Losses& losses,
                                              const std::vector<double>& reference) {
  const double whole = hypervolume(losses, reference);
  std::vector<double> out(losses.size());
  Losses rest;
  for (size_t i = 0; i < losses.size(); ++i) {
    rest.assign(losses.begin(), losses.end());
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    out[i] = std::max(0.0, whole - hypervolume(rest, reference));
  }
  return out;
}

std::vector<size_t> select_by_hypervolume(const Losses& losses, size_t k,
                                          const std::vector<double>& reference) {
  // Lazy greedy: a point's gain only shrinks as others are chosen, so a
  // gain computed in an earlier round bounds the fresh one. The heap's top
  // is recomputed until it is fresh; then nothing else can beat it.
  struct Entry {
    double gain;
    size_t index;
    size_t round;  // the number of points chosen when `gain` was computed
    bool operator<(const Entry& o) const {
      return gain < o.gain || (gain == o.gain && index > o.index);
    }
  };
  std::priority_queue<Entry> heap;
  for (size_t i = 0; i < losses.size(); ++i) {
    heap.push({box_volume(losses[i], reference), i, 0});
  }
  std::vector<size_t> chosen;
  Losses set;
  double base = 0;
  while (chosen.size() < k && !heap.empty()) {
    Entry top = heap.top();
    heap.pop();
    if (top.round != chosen.size()) {
      set.push_back(losses[top.index]);
      top.gain = hypervolume(set, reference) - base;
      set.pop_back();
      top.round = chosen.size();
      heap.push(top);
      continue;
    }
    chosen.push_back(top.index);
    set.push_back(losses[top.index]);
    base = hypervolume(set, reference);
  }
  return chosen;
}

std::vector<double> nadir_reference(const Losses& losses) {
  if (losses.empty()) return {};
  std::vector<double> ref(losses[0].size(), -std::numeric_limits<double>::infinity());
  for (const auto& p : losses) {
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = std::max(ref[i], p[i]);
  }
  for (double& r : ref) r += std::max(std::abs(r) * 0.1, 1e-12);
  return ref;
}

}  // namespace hpo
