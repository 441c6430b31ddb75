// Warm start in the GP: the source-indicator dimension. A prior
// observation (prior_observations.h) is a reading of another function,
// the earlier stage's, that is correlated with this study's to a degree
// nobody knows beforehand. So the GP models pairs (x, source), source 0
// this study and s > 0 an earlier one, with one more kernel dimension: a
// categorical one, the source, whose lengthscale is fitted with the others
// by maximum a posteriori (gp_hyperparameters.h). Between two sources at
// the same x the kernel's correlation is matern52(1 / lengthscale^2): near
// 1 when the earlier stage ranks points as this study does, and near 0
// when this study's own trials contradict it, so that a misleading
// earlier stage is down-weighted by the data itself. Predictions, and so
// the acquisition, are always for source 0.
#ifndef HPO_SAMPLERS_GP_SOURCES_H_
#define HPO_SAMPLERS_GP_SOURCES_H_

#include <Eigen/Core>

#include "samplers/gp_history.h"
#include "samplers/matern_kernel.h"

namespace hpo {

// `history` with the source appended to each observed row, and 0 (this
// study) to each pending one.
GpHistory with_source_dimension(const GpHistory& history);

// `point`, a point of the encoded space, as this study's: source 0 appended.
Eigen::VectorXd at_target(const Eigen::VectorXd& point);
// The same for each column of `points`.
Eigen::MatrixXd columns_at_target(const Eigen::MatrixXd& points);

// The fitted correlation between two sources at the same point, read from
// the last lengthscale of `params` (the source dimension).
double source_correlation(const KernelParams& params);

}  // namespace hpo

#endif  // HPO_SAMPLERS_GP_SOURCES_H_
