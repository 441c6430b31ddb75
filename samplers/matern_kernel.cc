#include "samplers/matern_kernel.h"

#include <cmath>

#include "samplers/numbers.h"

namespace hpo {

double dimension_difference(double a, double b, bool categorical) {
  if (categorical) return a == b ? 0.0 : 1.0;
  return (a - b) * (a - b);
}

double matern52(double r_sq) {
  const double r = std::sqrt(r_sq);
  return (1.0 + kSqrt5 * r + 5.0 / 3.0 * r_sq) * std::exp(-kSqrt5 * r);
}

Eigen::ArrayXXd matern52(const Eigen::ArrayXXd& r_sq) {
  const Eigen::ArrayXXd r = r_sq.sqrt();
  return (1.0 + kSqrt5 * r + 5.0 / 3.0 * r_sq) * (-kSqrt5 * r).exp();
}

// d/d(r^2) of the above: -(5/6) (1 + sqrt(5) r) exp(-sqrt(5) r).
double matern52_slope(double r_sq) {
  const double r = std::sqrt(r_sq);
  return -5.0 / 6.0 * (1.0 + kSqrt5 * r) * std::exp(-kSqrt5 * r);
}

double MaternKernel::r_sq(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const {
  double sum = 0.0;
  for (Eigen::Index d = 0; d < a.size(); ++d) {
    sum += params_.inverse_sq_lengthscale[d] *
           dimension_difference(a[d], b[d], categorical_[static_cast<size_t>(d)]);
  }
  return sum;
}

double MaternKernel::operator()(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const {
  return params_.scale * matern52(r_sq(a, b));
}

// The loops below read rows in place: a row copied into a VectorXd per pair
// would allocate n^2 times per kernel matrix.
double MaternKernel::row_r_sq(const Eigen::MatrixXd& x, Eigen::Index i,
                              const Eigen::VectorXd& point) const {
  double sum = 0.0;
  for (Eigen::Index d = 0; d < x.cols(); ++d) {
    sum += params_.inverse_sq_lengthscale[d] *
           dimension_difference(x(i, d), point[d], categorical_[static_cast<size_t>(d)]);
  }
  return sum;
}

Eigen::MatrixXd MaternKernel::matrix(const Eigen::MatrixXd& x) const {
  const Eigen::Index n = x.rows();
  Eigen::MatrixXd k(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    const Eigen::VectorXd column = x.row(j).transpose();
    k(j, j) = params_.scale;
    for (Eigen::Index i = j + 1; i < n; ++i)
      k(i, j) = k(j, i) = params_.scale * matern52(row_r_sq(x, i, column));
  }
  return k;
}

Eigen::VectorXd MaternKernel::column(const Eigen::MatrixXd& x, const Eigen::VectorXd& point) const {
  Eigen::VectorXd k(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    k[i] = params_.scale * matern52(row_r_sq(x, i, point));
  return k;
}

Eigen::ArrayXd MaternKernel::cross_r_sq(const Eigen::MatrixXd& x,
                                        const Eigen::VectorXd& point) const {
  Eigen::ArrayXd r_sq = Eigen::ArrayXd::Zero(x.rows());
  for (Eigen::Index d = 0; d < x.cols(); ++d) {
    const double w = params_.inverse_sq_lengthscale[d];
    if (categorical_[static_cast<size_t>(d)])
      r_sq += w * (x.col(d).array() != point[d]).cast<double>();
    else
      r_sq += w * (x.col(d).array() - point[d]).square();
  }
  return r_sq;
}

Eigen::MatrixXd MaternKernel::cross(const Eigen::MatrixXd& x, const Eigen::MatrixXd& points) const {
  Eigen::ArrayXXd r_sq = Eigen::ArrayXXd::Zero(x.rows(), points.cols());
  for (Eigen::Index d = 0; d < x.cols(); ++d) {
    const double w = params_.inverse_sq_lengthscale[d];
    const auto rows = x.col(d).array();
    for (Eigen::Index j = 0; j < points.cols(); ++j) {
      if (categorical_[static_cast<size_t>(d)])
        r_sq.col(j) += w * (rows != points(d, j)).cast<double>();
      else
        r_sq.col(j) += w * (rows - points(d, j)).square();
    }
  }
  return params_.scale * matern52(r_sq).matrix();
}

}  // namespace hpo
