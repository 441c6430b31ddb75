#include "samplers/gp_posterior.h"

#include <doctest/doctest.h>

#include <cmath>

#include "samplers/gp_acquisition.h"
#include "samplers/gp_hyperparameters.h"

namespace hpo {
namespace {

KernelParams params(std::vector<double> w, double scale, double noise) {
  KernelParams p;
  p.inverse_sq_lengthscale =
      Eigen::Map<Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size()));
  p.scale = scale;
  p.noise = noise;
  return p;
}

// Matérn-5/2 at distance r, written out: (1 + sqrt5 r + 5 r^2 / 3) e^(-sqrt5 r).
double matern(double r) {
  return (1 + std::sqrt(5.0) * r + 5.0 * r * r / 3) * std::exp(-std::sqrt(5.0) * r);
}

TEST_CASE("gp: posterior mean and variance match the closed form on two points") {
  // 1-D, lengthscale 0.5 (w = 4), scale 2, noise 0.1; points 0.2 -> 1, 0.7 -> -0.5.
  const MaternKernel kernel(params({4.0}, 2.0, 0.1), {false});
  Eigen::MatrixXd x(2, 1);
  x << 0.2, 0.7;
  Eigen::VectorXd y(2);
  y << 1.0, -0.5;
  const GpPosterior posterior(kernel, x, y);

  // K = [[a, b], [b, a]], a = 2 + 0.1, b = 2 m(|0.2 - 0.7| / 0.5) = 2 m(1);
  // K^-1 = [[a, -b], [-b, a]] / (a^2 - b^2).
  const double a = 2.1, b = 2 * matern(1.0), det = a * a - b * b;
  const double point = 0.4;
  const double k1 = 2 * matern(0.2 / 0.5), k2 = 2 * matern(0.3 / 0.5);
  const double alpha1 = (a * 1.0 - b * -0.5) / det, alpha2 = (-b * 1.0 + a * -0.5) / det;
  const double mean = k1 * alpha1 + k2 * alpha2;
  const double variance = 2 - (k1 * (a * k1 - b * k2) + k2 * (-b * k1 + a * k2)) / det;

  Eigen::VectorXd p(1);
  p << point;
  const auto prediction = posterior.predict(p, false);
  CHECK(prediction.mean == doctest::Approx(mean).epsilon(1e-12));
  CHECK(prediction.variance == doctest::Approx(variance).epsilon(1e-12));
}

TEST_CASE("gp: a categorical dimension counts only whether choices differ") {
  const MaternKernel kernel(params({1.0, 3.0}, 1.0, 1e-6), {false, true});
  Eigen::VectorXd a(2), b(2), c(2);
  a << 0.5, 0;
  b << 0.5, 1;
  c << 0.5, 2;
  CHECK(kernel(a, b) == doctest::Approx(matern(std::sqrt(3.0))));
  CHECK(kernel(a, b) == kernel(a, c));  // choice 2 is no farther than choice 1
}

// Central differences of f at x along each coordinate.
template <typename F>
Eigen::VectorXd numeric_gradient(F f, Eigen::VectorXd x) {
  Eigen::VectorXd g(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double h = 1e-6, keep = x[i];
    x[i] = keep + h;
    const double up = f(x);
    x[i] = keep - h;
    const double down = f(x);
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

Eigen::MatrixXd sample_x() {
  Eigen::MatrixXd x(5, 3);
  x << 0.1, 0.9, 0, 0.4, 0.2, 1, 0.8, 0.5, 2, 0.3, 0.3, 1, 0.6, 0.7, 0;
  return x;
}

Eigen::VectorXd sample_y() {
  Eigen::VectorXd y(5);
  y << 0.3, -1.2, 0.8, 1.5, -0.4;
  return y;
}

TEST_CASE("gp: the hyperparameter gradient matches central differences") {
  const std::vector<bool> categorical = {false, false, true};
  Eigen::VectorXd theta(5);
  theta << 1.0, 2.0, 0.5, 0.2, -3.0;
  Eigen::VectorXd analytic(5);
  negative_log_posterior(theta, sample_x(), sample_y(), categorical, analytic);
  const auto numeric = numeric_gradient(
      [&](const Eigen::VectorXd& t) {
        Eigen::VectorXd g(5);
        return negative_log_posterior(t, sample_x(), sample_y(), categorical, g);
      },
      theta);
  for (Eigen::Index i = 0; i < 5; ++i)
    CHECK(analytic[i] == doctest::Approx(numeric[i]).epsilon(1e-5));
}

TEST_CASE("gp: the log EI gradient matches central differences in numeric dimensions") {
  const std::vector<bool> categorical = {false, false, true};
  const GpPosterior posterior(MaternKernel(params({6.0, 2.0, 1.0}, 1.3, 1e-4), categorical),
                              sample_x(), sample_y());
  for (double best : {1.5, 4.0}) {  // near the data, and deep in EI's tail
    const LogEi log_ei(posterior, best);
    Eigen::VectorXd point(3), analytic;
    point << 0.55, 0.35, 1;
    log_ei(point, &analytic);
    const auto numeric =
        numeric_gradient([&](const Eigen::VectorXd& p) { return log_ei(p); }, point);
    CAPTURE(best);
    CHECK(analytic[0] == doctest::Approx(numeric[0]).epsilon(1e-5));
    CHECK(analytic[1] == doctest::Approx(numeric[1]).epsilon(1e-5));
    CHECK(analytic[2] == 0);
  }
}

TEST_CASE("gp: scoring points as one matrix agrees with scoring them one by one") {
  // The random candidates and a discrete coordinate's neighbours are scored
  // in batches; the local search's L-BFGS scores single points.
  const std::vector<bool> categorical = {false, false, true};
  const GpPosterior posterior(MaternKernel(params({6.0, 2.0, 1.0}, 1.3, 1e-4), categorical),
                              sample_x(), sample_y());
  Eigen::MatrixXd points(3, 4);
  points << 0.55, 0.1, 0.0, 0.8,  //
      0.35, 0.9, 1.0, 0.5,  //
      1, 0, 2, 2;  // the last is an observation: variance near 0
  const GpBatchPrediction batch = posterior.predict(points);
  const LogEi log_ei(posterior, 1.5);
  const Eigen::VectorXd scores = log_ei(points);
  for (Eigen::Index j = 0; j < points.cols(); ++j) {
    const GpPrediction one = posterior.predict(Eigen::VectorXd(points.col(j)), false);
    CAPTURE(j);
    CHECK(batch.mean[j] == doctest::Approx(one.mean).epsilon(1e-12));
    CHECK(batch.variance[j] == doctest::Approx(one.variance).epsilon(1e-9));
    CHECK(scores[j] == doctest::Approx(log_ei(Eigen::VectorXd(points.col(j)))).epsilon(1e-9));
  }
}

TEST_CASE("gp: the MAP fit finds a longer lengthscale for a dimension that does not matter") {
  // A 4 x 4 grid; y varies along x0 only, so equal-x0 pairs agree along x1.
  Eigen::MatrixXd x(16, 2);
  Eigen::VectorXd y(16);
  for (int i = 0; i < 16; ++i) {
    x(i, 0) = (i % 4) / 3.0;
    x(i, 1) = (i / 4) / 3.0;
    y[i] = std::sin(5 * x(i, 0));
  }
  y = (y.array() - y.mean()) / std::sqrt((y.array() - y.mean()).square().mean());
  const KernelParams fit = fit_kernel(x, y, {false, false}, false);
  CHECK(fit.inverse_sq_lengthscale[0] > 10 * fit.inverse_sq_lengthscale[1]);
  const KernelParams fixed = fit_kernel(x, y, {false, false}, true);
  CHECK(fixed.noise == doctest::Approx(1e-6));
}

}  // namespace
}  // namespace hpo
