#include "samplers/gp_sources.h"

namespace hpo {

namespace {

Eigen::MatrixXd with_column(const Eigen::MatrixXd& x, const Eigen::VectorXd& column) {
  Eigen::MatrixXd out(x.rows(), x.cols() + 1);
  out << x, column;
  return out;
}

}  // namespace

GpHistory with_source_dimension(const GpHistory& history) {
  GpHistory out = history;
  out.x = with_column(history.x, history.source);
  out.pending = with_column(history.pending, Eigen::VectorXd::Zero(history.pending.rows()));
  return out;
}

Eigen::VectorXd at_target(const Eigen::VectorXd& point) {
  Eigen::VectorXd out(point.size() + 1);
  out << point, 0.0;
  return out;
}

Eigen::MatrixXd columns_at_target(const Eigen::MatrixXd& points) {
  Eigen::MatrixXd out(points.rows() + 1, points.cols());
  out << points, Eigen::RowVectorXd::Zero(points.cols());
  return out;
}

double source_correlation(const KernelParams& params) {
  const auto& w = params.inverse_sq_lengthscale;
  return matern52(w[w.size() - 1]);
}

}  // namespace hpo
