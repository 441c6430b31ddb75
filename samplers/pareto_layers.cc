#include "samplers/pareto_layers.h"

#include <algorithm>
#include <iterator>

#include "samplers/pareto.h"

namespace hpo {

namespace {

bool any_dominates(const std::vector<ParetoLayers::Point>& by, const std::vector<double>& p) {
  return std::any_of(by.begin(), by.end(),
                     [&](const ParetoLayers::Point& q) { return dominates(q.losses, p); });
}

}  // namespace

void ParetoLayers::add(int id, std::vector<double> losses) {
  // The new point's rank: the first front with no point that dominates it.
  // A front that holds one has one in every front before it (each point of
  // rank r is dominated by one of rank r - 1), so the fronts can be bisected.
  size_t lo = 0, hi = fronts_.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (any_dominates(fronts_[mid], losses))
      lo = mid + 1;
    else
      hi = mid;
  }
  // It joins front lo; the points there that it dominates move down one,
  // and the points of the next front that those dominate move down one in
  // turn: nothing else's rank changes.
  std::vector<Point> moving{{id, std::move(losses)}};
  for (size_t r = lo; r < depth_ && !moving.empty(); ++r) {
    if (r == fronts_.size()) fronts_.emplace_back();
    std::vector<Point>& front = fronts_[r];
    std::vector<Point> next;
    const auto beaten = std::stable_partition(front.begin(), front.end(), [&](const Point& p) {
      return !any_dominates(moving, p.losses);
    });
    std::move(beaten, front.end(), std::back_inserter(next));
    front.erase(beaten, front.end());
    std::move(moving.begin(), moving.end(), std::back_inserter(front));
    moving = std::move(next);
  }
}

}  // namespace hpo
