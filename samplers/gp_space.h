// How the GP sees a search space: each modelled parameter is one
// coordinate of [0, 1] (a categorical: its choice index).
//   float            continuous; log ones in log space
//   float with step,
//   int              discrete: the grid's points, log ints in log space;
//                    beyond 1024 points continuous, rounded to the grid
//   numeric choices  discrete: their ranks by value, equally spaced
//   other choices    categorical: the index, compared by the Hamming kernel
// Conditional parameters are not modelled (see gp_sampler.h).
#ifndef HPO_SAMPLERS_GP_SPACE_H_
#define HPO_SAMPLERS_GP_SPACE_H_

#include <Eigen/Core>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "samplers/search_space.h"

namespace hpo {

enum class GpDimKind { kContinuous, kDiscrete, kCategorical };

struct GpDim {
  std::string name;
  Distribution distribution;
  GpDimKind kind = GpDimKind::kContinuous;
  // Discrete: the coordinate of each grid point in internal-value order
  // (grid index for numbers, choice index for choices).
  std::vector<double> points;
  // Discrete: the internal value of each point.
  std::vector<double> internal;
  int choices = 0;  // categorical
  // Continuous: the range, and the grid step a value snaps to (0: none).
  double low = 0.0, high = 1.0, step = 0.0;
  bool log = false;
};

class GpSpace {
 public:
  // The unconditional parameters of `space`.
  explicit GpSpace(const SearchSpace& space);

  const std::vector<GpDim>& dims() const { return dims_; }
  size_t size() const { return dims_.size(); }
  std::vector<bool> categorical() const;

  // The point of a trial's internal values; nullopt when one is missing or
  // outside its distribution (a trial of an older space).
  std::optional<Eigen::VectorXd> encode(const std::map<std::string, double>& params) const;
  // The internal value of coordinate `d` at `x`, snapped to the grid.
  double decode(size_t d, double x) const;

 private:
  std::vector<GpDim> dims_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_GP_SPACE_H_
