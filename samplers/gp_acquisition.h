// The acquisition the GP sampler maximizes: log EI (log_ei.h) of the
// posterior at a point of the encoded space, with its gradient in the
// numeric coordinates. Values are standardized and maximized.
#ifndef HPO_SAMPLERS_GP_ACQUISITION_H_
#define HPO_SAMPLERS_GP_ACQUISITION_H_

#include <Eigen/Core>

#include "samplers/gp_posterior.h"

namespace hpo {

class LogEi {
 public:
  // `best`: the incumbent, the largest standardized value observed.
  LogEi(const GpPosterior& posterior, double best) : posterior_(posterior), best_(best) {}

  // log EI at x; with `gradient`, also d/dx (zero in categorical dimensions).
  double operator()(const Eigen::VectorXd& x, Eigen::VectorXd* gradient = nullptr) const;
  // log EI at each column of `points`.
  Eigen::VectorXd operator()(const Eigen::MatrixXd& points) const;

 private:
  const GpPosterior& posterior_;
  double best_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_GP_ACQUISITION_H_
