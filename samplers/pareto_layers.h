// The best few non-domination fronts of a set of points that grows one
// point at a time, as multi-objective TPE's split needs them: re-ranking
// every trial at every ask cost time in proportion to the study, while an
// added point moves only the points it dominates down a front.
//
// Only fronts 0 .. depth-1 are kept: adding points never lowers a point's
// rank, so a point of rank depth or more never comes back. The ranks of the
// points kept equal their ranks among all points added (every point of a
// longest chain of dominating points above a kept one is kept too).
#ifndef HPO_SAMPLERS_PARETO_LAYERS_H_
#define HPO_SAMPLERS_PARETO_LAYERS_H_

#include <cstddef>
#include <vector>

namespace hpo {

class ParetoLayers {
 public:
  struct Point {
    int id;
    std::vector<double> losses;
  };

  explicit ParetoLayers(size_t depth) : depth_(depth) {}

  // Adds a point (smaller losses are better, as in pareto.h).
  void add(int id, std::vector<double> losses);
  void clear() { fronts_.clear(); }

  // Front r's points, in no particular order; at most depth fronts.
  const std::vector<std::vector<Point>>& fronts() const { return fronts_; }

 private:
  size_t depth_;
  std::vector<std::vector<Point>> fronts_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_PARETO_LAYERS_H_
