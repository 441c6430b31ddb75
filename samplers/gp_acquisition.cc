#include "samplers/gp_acquisition.h"

#include <cmath>

#include "samplers/log_ei.h"

namespace hpo {

// log EI = log sd + log h(z), z = (mean - best) / sd; with s = sd,
// d log EI = ds / s + log h'(z) (d mean - z ds) / s, ds = d variance / (2 s).
double LogEi::operator()(const Eigen::VectorXd& x, Eigen::VectorXd* gradient) const {
  const GpPrediction p = posterior_.predict(x, gradient != nullptr);
  const double sd = std::sqrt(p.variance);
  const double z = (p.mean - best_) / sd;
  if (gradient) {
    const Eigen::VectorXd d_sd = p.d_variance / (2.0 * sd);
    *gradient = d_sd / sd + d_log_h(z) * (p.d_mean - z * d_sd) / sd;
  }
  return std::log(sd) + log_h(z);
}

Eigen::VectorXd LogEi::operator()(const Eigen::MatrixXd& points) const {
  const GpBatchPrediction p = posterior_.predict(points);
  Eigen::VectorXd out(points.cols());
  for (Eigen::Index j = 0; j < points.cols(); ++j) {
    const double sd = std::sqrt(p.variance[j]);
    out[j] = std::log(sd) + log_h((p.mean[j] - best_) / sd);
  }
  return out;
}

}  // namespace hpo
