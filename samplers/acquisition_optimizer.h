// Maximizes an acquisition over a mixed encoded space (gp_space.h): from
// many starts, alternate bounded L-BFGS-B over the continuous coordinates
// (the others held) with a local search over each discrete and categorical
// coordinate (the others held), until a round improves nothing.
// The starts are the incumbents (the best observed points, where EI is
// often highest nearby) and the best of many uniform random points.
#ifndef HPO_SAMPLERS_ACQUISITION_OPTIMIZER_H_
#define HPO_SAMPLERS_ACQUISITION_OPTIMIZER_H_

#include <Eigen/Core>
#include <functional>
#include <random>
#include <vector>

#include "samplers/gp_space.h"

namespace hpo {

struct Acquisition {
  // value(x, gradient or nullptr); gradient only in continuous coordinates.
  std::function<double(const Eigen::VectorXd&, Eigen::VectorXd*)> point;
  // The value at each column of a matrix: how random points and a discrete
  // coordinate's neighbours are scored, in one pass each.
  std::function<Eigen::VectorXd(const Eigen::MatrixXd&)> batch;
};

struct AcquisitionSearch {
  int random_points = 512;  // uniform draws scored before choosing starts
  int random_starts = 8;  // the best of them, beside the incumbents
  int max_rounds = 5;  // alternations of the continuous and discrete steps
  int lbfgs_iterations = 50;
};

// The search for a GP of `observed` points: up to 100 points, 512 random
// points; beyond, fewer (51,200 / n, at least 128), since scoring one costs
// ~n^2 (a triangular solve) and the incumbents' starts matter more then.
AcquisitionSearch acquisition_search(Eigen::Index observed);

// The best point found; `rng` draws the random points.
Eigen::VectorXd maximize_acquisition(const Acquisition& acquisition, const GpSpace& space,
                                     const std::vector<Eigen::VectorXd>& incumbents,
                                     std::mt19937_64& rng, const AcquisitionSearch& search = {});

// A uniform random point of the encoded space.
Eigen::VectorXd random_point(const GpSpace& space, std::mt19937_64& rng);

}  // namespace hpo

#endif  // HPO_SAMPLERS_ACQUISITION_OPTIMIZER_H_
