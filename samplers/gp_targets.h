// How observed values become the GP's targets. Objectives in machine
// learning are often heavy-tailed (a diverged run scores 10^4 where good
// ones score 10^-4): standardized as they are, the good values all land
// within a hair of each other and the GP cannot tell them apart. So:
//   1. center on the median and scale by the interquartile range, so that
//      a few huge values stay far out instead of squeezing the rest;
//   2. a Yeo-Johnson power transform, its lambda in [-3, 5] by maximum
//      likelihood of a normal fit (lambda = 1 is the identity, chosen when
//      the values already look normal; far tails pull lambda away and are
//      drawn in, like a log would);
//   3. mean 0 and standard deviation 1.
// The transform is monotone, so the best value stays the best. With fewer
// than 3 values, or a zero interquartile range, only step 3.
#ifndef HPO_SAMPLERS_GP_TARGETS_H_
#define HPO_SAMPLERS_GP_TARGETS_H_

#include <Eigen/Core>

namespace hpo {

// Larger is better in and out.
Eigen::VectorXd gp_targets(const Eigen::VectorXd& values);

// Step 3 alone: mean 0 and standard deviation 1; constant values become 0.
Eigen::VectorXd standardize(const Eigen::VectorXd& values);

// The Yeo-Johnson transform of y with parameter lambda.
double yeo_johnson(double y, double lambda);

}  // namespace hpo

#endif  // HPO_SAMPLERS_GP_TARGETS_H_
