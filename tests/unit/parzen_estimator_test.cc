#include "samplers/parzen_estimator.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "samplers/kernel_width.h"
#include "samplers/truncnorm.h"
#include "samplers/uniform.h"

namespace hpo {
namespace {

Eigen::ArrayXXd column(std::initializer_list<double> values) {
  Eigen::ArrayXXd x(static_cast<Eigen::Index>(values.size()), 1);
  Eigen::Index i = 0;
  for (double v : values) x(i++, 0) = v;
  return x;
}

KernelDim unit_interval() { return KernelDim{false, 0, 0.0, 1.0, 0.0}; }

double normal_pdf(double x, double mu, double s) {
  return std::exp(-0.5 * (x - mu) * (x - mu) / (s * s)) / (s * std::sqrt(2 * M_PI));
}

TEST_CASE("weights ramp up for all but the newest 25 observations") {
  CHECK((default_weights(3) == 1.0).all());
  const auto w = default_weights(27);  // two ramped: 1/27 and 1
  CHECK(w(0) == doctest::Approx(1.0 / 27));
  CHECK(w(1) == doctest::Approx(1.0));
  CHECK((w.tail(25) == 1.0).all());
  const auto w100 = default_weights(100);
  CHECK(w100(0) == doctest::Approx(0.01));
  CHECK(w100(37) == doctest::Approx(0.01 + 0.99 * 37 / 74));
  CHECK(default_weights(0).size() == 0);
}

TEST_CASE("univariate bandwidths: the larger gap to a sorted neighbour") {
  // Kernels at 0.2, 0.5, 0.9 and the prior at 0.5: sorted 0.2 0.5 0.5 0.9.
  // Without endpoints the outer ones look inwards only (0.3 and 0.4); the
  // observed 0.5 sorts before the prior's, so it gets max(0.3, 0) and the
  // prior max(0, 0.4). Then the clip to [1/5, 1], and the prior gets 1.
  ParzenOptions options;
  const ParzenEstimator pe({unit_interval()}, column({0.2, 0.5, 0.9}), Eigen::ArrayXd::Ones(3),
                           options);
  REQUIRE(pe.n_kernels() == 4);
  CHECK(pe.sigmas(0)(0) == doctest::Approx(0.3));
  CHECK(pe.sigmas(0)(1) == doctest::Approx(0.3));
  CHECK(pe.sigmas(0)(2) == doctest::Approx(0.4));
  CHECK(pe.sigmas(0)(3) == doctest::Approx(1.0));

  options.consider_endpoints = true;  // 0.2 now also sees the gap to 0 ... still 0.3
  const ParzenEstimator ends({unit_interval()}, column({0.05, 0.5}), Eigen::ArrayXd::Ones(2),
                             options);
  CHECK(ends.sigmas(0)(0) == doctest::Approx(0.45));
}

TEST_CASE(
    "bandwidths from the observations' order, given, equal those from the estimator's own sort") {
  // Ties, among the observations and with the prior's mean (0.5), must
  // fall as the estimator's sort puts them: by kernel, the prior last.
  std::mt19937_64 rng(3);
  const int n = 300;
  Eigen::ArrayXXd obs(n, 1);
  for (int i = 0; i < n; ++i) obs(i, 0) = i % 10 == 0 ? 0.5 : i % 7 == 0 ? 0.25 : uniform01(rng);
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return obs(a, 0) < obs(b, 0); });
  for (bool endpoints : {false, true}) {
    for (bool prior : {false, true}) {
      CAPTURE(endpoints);
      CAPTURE(prior);
      ParzenOptions options;
      options.consider_endpoints = endpoints;
      options.consider_prior = prior;
      options.consider_magic_clip = false;  // every gap counts
      const ParzenEstimator sorted_here({unit_interval()}, obs, Eigen::ArrayXd::Ones(n), options);
      const ParzenEstimator given({unit_interval()}, obs, Eigen::ArrayXd::Ones(n), options,
                                  {order});
      CHECK((sorted_here.sigmas(0) == given.sigmas(0)).all());
    }
  }
}

TEST_CASE("the magic clip keeps close observations from making spikes") {
  ParzenOptions options;
  const auto obs = column({0.50, 0.501, 0.502});
  const ParzenEstimator clipped({unit_interval()}, obs, Eigen::ArrayXd::Ones(3), options);
  CHECK(clipped.sigmas(0).head(3).minCoeff() == doctest::Approx(1.0 / 5));
  options.consider_magic_clip = false;
  const ParzenEstimator raw({unit_interval()}, obs, Eigen::ArrayXd::Ones(3), options);
  CHECK(raw.sigmas(0)(1) == doctest::Approx(0.001));
}

TEST_CASE("multivariate bandwidths follow Scott's rule") {
  ParzenOptions options;
  options.multivariate = true;
  Eigen::ArrayXXd obs(8, 2);
  obs.setConstant(0.5);
  const KernelDim wide{false, 0, -2.0, 2.0, 0.0};
  const ParzenEstimator pe({unit_interval(), wide}, obs, Eigen::ArrayXd::Ones(8), options);
  const double sigma0 = 0.2 * std::pow(8.0, -1.0 / 6);
  CHECK(pe.sigmas(0)(0) == doctest::Approx(sigma0));
  CHECK(pe.sigmas(1)(3) == doctest::Approx(4 * sigma0));
  CHECK(pe.sigmas(1)(8) == doctest::Approx(4.0));  // the prior spans the range
}

TEST_CASE("continuous kernels by hand: truncated normals weighted by their width") {
  // One observation at 0.3 and the prior, weight 1/2 each. Sorted mus 0.3,
  // 0.5: both look inwards (0.2), clipped up to 1/3; the prior gets 1. As in
  // Optuna 3.1, each kernel is sigma times its truncated normal density.
  const ParzenEstimator pe({unit_interval()}, column({0.3}), Eigen::ArrayXd::Ones(1),
                           ParzenOptions{});
  auto mass = [](double mu, double s) {
    return truncnorm::ndtr((1 - mu) / s) - truncnorm::ndtr(-mu / s);
  };
  for (double x : {0.0, 0.3, 0.77, 1.0}) {
    const double by_hand = 0.5 / 3 * normal_pdf(x, 0.3, 1.0 / 3) / mass(0.3, 1.0 / 3) +
                           0.5 * normal_pdf(x, 0.5, 1.0) / mass(0.5, 1.0);
    CHECK(std::exp(pe.log_pdf(column({x}))(0)) == doctest::Approx(by_hand).epsilon(1e-12));
  }
}

TEST_CASE("Scott's and Hyperopt's bandwidths, whatever the multivariate flag") {
  ParzenOptions options;
  options.multivariate = true;
  options.bandwidth = TpeBandwidth::kScott;
  options.min_bandwidth_factor = 0.03;
  options.magic_clip_exponent = 2.0;
  const ParzenEstimator scott({unit_interval()}, column({0.2, 0.5, 0.9}), Eigen::ArrayXd::Ones(3),
                              options);
  Eigen::ArrayXd mus(4);
  mus << 0.2, 0.5, 0.9, 0.5;  // the prior's mean counts too
  for (int k = 0; k < 3; ++k) CHECK(scott.sigmas(0)(k) == doctest::Approx(scott_bandwidth(mus)));
  CHECK(scott.sigmas(0)(3) == 1.0);
  // Identical observations: Scott gives 0, the clip max(0.03, 1/6^2) = 0.03.
  const ParzenEstimator same({unit_interval()}, column({0.5, 0.5, 0.5, 0.5}),
                             Eigen::ArrayXd::Ones(4), options);
  CHECK(same.sigmas(0)(0) == doctest::Approx(0.03));

  options.bandwidth = TpeBandwidth::kNeighbours;  // the domain's ends count
  const ParzenEstimator gaps({unit_interval()}, column({0.05, 0.5}), Eigen::ArrayXd::Ones(2),
                             options);
  CHECK(gaps.sigmas(0)(0) == doctest::Approx(0.45));
}

TEST_CASE("normalized continuous kernels, and the prior's own mixture weight, by hand") {
  // One observation at 0.3 with weight 3, the prior's weight set to 1: 3/4
  // and 1/4. Bandwidths as in the width-weighted case above: 1/3 and 1.
  ParzenOptions options;
  options.normalized = true;
  options.prior_kernel_weight = 1.0;
  options.prior_weight = 5.0;  // only the categorical smoothing would see this
  const ParzenEstimator pe({unit_interval()}, column({0.3}), Eigen::ArrayXd::Constant(1, 3.0),
                           options);
  auto mass = [](double mu, double s) {
    return truncnorm::ndtr((1 - mu) / s) - truncnorm::ndtr(-mu / s);
  };
  double integral = 0;
  for (double x : {0.0, 0.3, 0.77, 1.0}) {
    const double by_hand = 0.75 * normal_pdf(x, 0.3, 1.0 / 3) / mass(0.3, 1.0 / 3) +
                           0.25 * normal_pdf(x, 0.5, 1.0) / mass(0.5, 1.0);
    CHECK(std::exp(pe.log_pdf(column({x}))(0)) == doctest::Approx(by_hand).epsilon(1e-12));
  }
  // A true density: it integrates to 1 over the support.
  const int n = 4000;
  Eigen::ArrayXXd grid(n, 1);
  for (int i = 0; i < n; ++i) grid(i, 0) = (i + 0.5) / n;
  integral = pe.log_pdf(grid).exp().sum() / n;
  CHECK(integral == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("Aitchison-Aitken categorical kernels, by hand") {
  // b = 0.2 over three choices: an observation kernel puts 0.8 on its
  // choice, 0.1 on each other; the prior 1/3 each. Observations {0, 0} and
  // the prior weigh 1/3 each.
  ParzenOptions options;
  options.categorical_prior_weight = 0.2;
  const KernelDim cat{true, 3, 0, 0, 0};
  const ParzenEstimator pe({cat}, column({0, 0}), Eigen::ArrayXd::Ones(2), options);
  const Eigen::ArrayXd p = pe.log_pdf(column({0, 1, 2})).exp();
  CHECK(p(0) == doctest::Approx(2.0 / 3 * 0.8 + 1.0 / 9));
  CHECK(p(1) == doctest::Approx(2.0 / 3 * 0.1 + 1.0 / 9));
  CHECK(p.sum() == doctest::Approx(1.0));
  // The general path (two dimensions) agrees: at x = 0.5 each kernel's
  // continuous factor c_k scales its categorical one.
  Eigen::ArrayXXd obs(2, 2);
  obs << 0, 0.5, 0, 0.5;
  const ParzenEstimator joint({cat, unit_interval()}, obs, Eigen::ArrayXd::Ones(2), options);
  auto c = [&](int k) {
    const double mu = joint.mus(1)(k), s = joint.sigmas(1)(k);
    const double mass = truncnorm::ndtr((1 - mu) / s) - truncnorm::ndtr(-mu / s);
    return std::exp(-0.5 * std::pow((0.5 - mu) / s, 2)) / std::sqrt(2 * M_PI) / mass;
  };
  const double obs_part = (c(0) + c(1)) / 3, prior_part = c(2) / 3;
  Eigen::ArrayXXd x(2, 2);
  x << 0, 0.5, 1, 0.5;
  const Eigen::ArrayXd r = joint.log_pdf(x).exp();
  CHECK(r(0) == doctest::Approx(obs_part * 0.8 + prior_part / 3).epsilon(1e-12));
  CHECK(r(1) == doctest::Approx(obs_part * 0.1 + prior_part / 3).epsilon(1e-12));
}

TEST_CASE("long mixtures, summed in float, agree with a double sum") {
  std::mt19937_64 rng(3);
  const int n = 3000;
  Eigen::ArrayXXd obs(n, 1);
  for (int i = 0; i < n; ++i) obs(i, 0) = uniform01(rng) * uniform01(rng);
  const auto weights = default_weights(n);
  const ParzenEstimator pe({unit_interval()}, obs, weights, ParzenOptions{});
  const double total = weights.sum() + 1;
  for (double x : {0.0, 0.01, 0.5, 0.999}) {
    double sum = 0;
    for (int k = 0; k <= n; ++k) {
      const double mu = pe.mus(0)(k), s = pe.sigmas(0)(k);
      const double mass = truncnorm::ndtr((1 - mu) / s) - truncnorm::ndtr(-mu / s);
      sum += (k < n ? weights(k) : 1.0) / total * s * normal_pdf(x, mu, s) / mass;
    }
    CHECK(pe.log_pdf(column({x}))(0) == doctest::Approx(std::log(sum)).epsilon(1e-6));
  }
}

TEST_CASE("grid masses sum to one, by hand and jointly with a continuous dimension") {
  // Integers 0..4: support [-0.5, 4.5], step 1.
  const KernelDim grid{false, 0, -0.5, 4.5, 1.0};
  const ParzenEstimator pe({grid}, column({1, 1, 4}), Eigen::ArrayXd::Ones(3), ParzenOptions{});
  const Eigen::ArrayXd p = pe.log_pdf(column({0, 1, 2, 3, 4})).exp();
  CHECK(p.sum() == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(p(1) > p(2));
  // The prior kernel alone (mu 2, sigma 5) gives cell 0, [-0.5, 0.5], this mass:
  const ParzenEstimator prior_only({grid}, Eigen::ArrayXXd(0, 1), Eigen::ArrayXd(0),
                                   ParzenOptions{});
  const double cell0 = (truncnorm::ndtr(-1.5 / 5) - truncnorm::ndtr(-2.5 / 5)) /
                       (truncnorm::ndtr(0.5) - truncnorm::ndtr(-0.5));
  CHECK(std::exp(prior_only.log_pdf(column({0}))(0)) == doctest::Approx(cell0).epsilon(1e-12));

  // Jointly with [0, 1] (multivariate: one bandwidth s for the
  // observations, 1 for the prior): integrating out the continuous
  // dimension by a midpoint sum leaves the grid's masses weighted by s.
  Eigen::ArrayXXd obs(3, 2);
  obs << 1, 0.2, 1, 0.8, 4, 0.5;
  ParzenOptions multi;
  multi.multivariate = true;
  const ParzenEstimator joint({grid, unit_interval()}, obs, Eigen::ArrayXd::Ones(3), multi);
  const ParzenEstimator grid_alone({grid}, column({1, 1, 4}), Eigen::ArrayXd::Ones(3), multi);
  const double s = joint.sigmas(1)(0);
  const int n = 2000;
  for (int g = 0; g < 5; ++g) {
    Eigen::ArrayXXd x(n, 2);
    for (int i = 0; i < n; ++i) x.row(i) << g, (i + 0.5) / n;
    const double marginal = joint.log_pdf(x).exp().sum() / n;
    // Kernel k's grid mass at g, times 1/4 (weight) and s (or 1, the prior).
    double by_hand = 0;
    for (int k = 0; k < 4; ++k) {
      const double mu = joint.mus(0)(k), sg = joint.sigmas(0)(k);
      const double cell =
          (truncnorm::ndtr((g + 0.5 - mu) / sg) - truncnorm::ndtr((g - 0.5 - mu) / sg)) /
          (truncnorm::ndtr((4.5 - mu) / sg) - truncnorm::ndtr((-0.5 - mu) / sg));
      by_hand += 0.25 * cell * (k < 3 ? s : 1.0);
    }
    CHECK(marginal == doctest::Approx(by_hand).epsilon(1e-6));
  }
  CHECK(grid_alone.n_kernels() == 4);
}

TEST_CASE("several discrete dimensions: the joint mass by hand, kernel by kernel") {
  // Two integer grids and a categorical, with many observations on few
  // values: log_pdf sums the discrete dimensions once per class of kernels
  // that agree on all three; the result must be the mixture all the same.
  const KernelDim grid{false, 0, -0.5, 4.5, 1.0};
  const KernelDim choice{true, 3, 0.0, 0.0, 0.0};
  const int n = 120;
  Eigen::ArrayXXd obs(n, 3);
  for (int i = 0; i < n; ++i) obs.row(i) << i % 3, (i * 7) % 5 == 0 ? 4 : 2, i % 2;
  ParzenOptions multi;
  multi.multivariate = true;
  multi.bandwidth = TpeBandwidth::kNeighbours;
  const ParzenEstimator pe({grid, grid, choice}, obs, Eigen::ArrayXd::Ones(n), multi);
  const double p = 1.0 / (n + 1);  // the prior weight spread over the choices
  auto cell = [&](int dim, int k, int g) {
    const double mu = pe.mus(dim)(k), s = pe.sigmas(dim)(k);
    return (truncnorm::ndtr((g + 0.5 - mu) / s) - truncnorm::ndtr((g - 0.5 - mu) / s)) /
           (truncnorm::ndtr((4.5 - mu) / s) - truncnorm::ndtr((-0.5 - mu) / s));
  };
  Eigen::ArrayXXd x(75, 3);
  for (int i = 0; i < 75; ++i) x.row(i) << i % 5, (i / 5) % 5, i / 25;
  const Eigen::ArrayXd got = pe.log_pdf(x);
  CHECK(got.exp().sum() == doctest::Approx(1.0).epsilon(1e-9));
  for (int i = 0; i < 75; ++i) {
    double sum = 0;
    for (int k = 0; k <= n; ++k) {
      const int c = i / 25;
      const double cat =
          k == n ? 1.0 / 3 : (c == static_cast<int>(obs(k, 2)) ? 1 + p : p) / (3 * p + 1);
      sum += cell(0, k, i % 5) * cell(1, k, (i / 5) % 5) * cat / (n + 1);
    }
    CHECK(got(i) == doctest::Approx(std::log(sum)).epsilon(1e-12));
  }
}

TEST_CASE("categorical kernels spread the prior weight, by hand") {
  // Three choices, observations {0, 0}: p = 1/3 per choice and kernel, so an
  // observation kernel gives (1 + 1/3) / 2 = 2/3 to its choice and 1/6 to
  // the others; the prior 1/3 each; kernel weights 1/3 each.
  const KernelDim cat{true, 3, 0, 0, 0};
  const ParzenEstimator pe({cat}, column({0, 0}), Eigen::ArrayXd::Ones(2), ParzenOptions{});
  const Eigen::ArrayXd p = pe.log_pdf(column({0, 1, 2})).exp();
  CHECK(p(0) == doctest::Approx(5.0 / 9));
  CHECK(p(1) == doctest::Approx(2.0 / 9));
  CHECK(p(2) == doctest::Approx(2.0 / 9));
  // The same through the general path, jointly with a second categorical.
  Eigen::ArrayXXd obs(2, 2);
  obs << 0, 1, 0, 1;
  const ParzenEstimator joint({cat, KernelDim{true, 2, 0, 0, 0}}, obs, Eigen::ArrayXd::Ones(2),
                              ParzenOptions{});
  Eigen::ArrayXXd x(6, 2);
  x << 0, 0, 0, 1, 1, 0, 1, 1, 2, 0, 2, 1;
  const Eigen::ArrayXd joint_p = joint.log_pdf(x).exp();
  CHECK(joint_p.sum() == doctest::Approx(1.0));
  CHECK(joint_p(0) + joint_p(1) == doctest::Approx(5.0 / 9));
  CHECK(joint_p(2) + joint_p(3) == doctest::Approx(2.0 / 9));
}

TEST_CASE("draws stay in the support and follow the weights") {
  std::mt19937_64 rng(5);
  const KernelDim cat{true, 4, 0, 0, 0};
  const KernelDim grid{false, 0, -0.5, 9.5, 1.0};
  Eigen::ArrayXXd obs(4, 3);
  obs << 0.1, 3, 2, 0.9, 3, 2, 0.95, 1, 2, 0.5, 9, 2;
  const ParzenEstimator pe({unit_interval(), grid, cat}, obs, Eigen::ArrayXd::Ones(4),
                           ParzenOptions{});
  const auto draws = pe.sample(rng, 4000);
  CHECK(draws.col(0).minCoeff() >= 0.0);
  CHECK(draws.col(0).maxCoeff() <= 1.0);
  CHECK(draws.col(1).minCoeff() >= -0.5);
  CHECK(draws.col(1).maxCoeff() <= 9.5);
  CHECK(((draws.col(2) == 0) || (draws.col(2) == 1) || (draws.col(2) == 2) || (draws.col(2) == 3))
            .all());
  // Choice 2: 4/5 of the kernels put (1 + 1/5) / (4/5 + 1) = 2/3 on it,
  // the prior 1/4: 0.8 * 2/3 + 0.2 * 1/4 = 0.5833.
  const double share = (draws.col(2) == 2).cast<double>().mean();
  CHECK(share == doctest::Approx(0.5833).epsilon(0.05));
}

}  // namespace
}  // namespace hpo
