// The GP's covariance: a Matérn-5/2 kernel with one lengthscale per
// dimension (ARD) over the encoded space (gp_space.h). Numeric dimensions
// contribute their squared difference; a categorical dimension contributes
// 1 when the choices differ and 0 when they agree (a Hamming distance with
// its own lengthscale), so that choices have no order and no positions.
//   r^2 = sum_d w_d * diff_d(x, y),  w_d = 1 / lengthscale_d^2
//   k(x, y) = scale * (1 + sqrt(5) r + 5/3 r^2) * exp(-sqrt(5) r)
#ifndef HPO_SAMPLERS_MATERN_KERNEL_H_
#define HPO_SAMPLERS_MATERN_KERNEL_H_

#include <Eigen/Core>
#include <vector>

namespace hpo {

struct KernelParams {
  Eigen::VectorXd inverse_sq_lengthscale;  // w_d, one per dimension
  double scale = 1.0;  // the prior variance of the standardized objective
  double noise = 1e-6;  // observation noise variance, added to the diagonal
};

// diff_d(a, b): (a - b)^2, or [a != b] for a categorical dimension.
double dimension_difference(double a, double b, bool categorical);

// The Matérn-5/2 correlation as a function of r^2, and its derivative in r^2.
// Written in r^2 so that the derivative stays finite at r = 0.
double matern52(double r_sq);
double matern52_slope(double r_sq);
// matern52 of every entry, with Eigen's vectorized sqrt and exp (several
// times faster than a libm call per entry on the candidates' matrices).
Eigen::ArrayXXd matern52(const Eigen::ArrayXXd& r_sq);

class MaternKernel {
 public:
  MaternKernel(KernelParams params, std::vector<bool> categorical)
      : params_(std::move(params)), categorical_(std::move(categorical)) {}

  const KernelParams& params() const { return params_; }
  const std::vector<bool>& categorical() const { return categorical_; }

  double r_sq(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const;
  // r^2 between row i of x and point.
  double row_r_sq(const Eigen::MatrixXd& x, Eigen::Index i, const Eigen::VectorXd& point) const;
  double operator()(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const;

  // k(x_i, x_j) over the rows of `x`, without the noise.
  Eigen::MatrixXd matrix(const Eigen::MatrixXd& x) const;
  // k(x_i, point) for each row x_i.
  Eigen::VectorXd column(const Eigen::MatrixXd& x, const Eigen::VectorXd& point) const;
  // r^2 between each row of x and point.
  Eigen::ArrayXd cross_r_sq(const Eigen::MatrixXd& x, const Eigen::VectorXd& point) const;
  // k(x_i, p_j) for each row x_i of `x` and each column p_j of `points`:
  // one matrix, so that many candidates are scored in a few passes.
  Eigen::MatrixXd cross(const Eigen::MatrixXd& x, const Eigen::MatrixXd& points) const;

 private:
  KernelParams params_;
  std::vector<bool> categorical_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_MATERN_KERNEL_H_
