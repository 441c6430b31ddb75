#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "hpo/stats/cscv.h"
#include "hpo/stats/deflated_sharpe.h"
#include "hpo/stats/effective_trials.h"
#include "hpo/stats/moments.h"
#include "hpo/stats/normal.h"
#include "hpo/stats/spearman.h"

namespace hpo::stats {
namespace {

Series noise(int trials, int days, uint64_t seed, double drift_per_trial = 0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 0.01);
  Series rows(trials, std::vector<double>(days));
  for (int i = 0; i < trials; ++i) {
    for (auto& v : rows[i]) v = z(rng) + drift_per_trial * i;
  }
  return rows;
}

TEST_CASE("stats: normal quantile inverts the CDF to 1e-15, tails included") {
  // Reference values: scipy.stats.norm.ppf.
  CHECK(normal_quantile(0.975) == doctest::Approx(1.959963984540054).epsilon(1e-14));
  CHECK(normal_quantile(0.5) == doctest::Approx(0.0));
  CHECK(normal_quantile(1e-10) == doctest::Approx(-6.361340902404056).epsilon(1e-13));
  CHECK(normal_quantile(0.99) == doctest::Approx(2.3263478740408408).epsilon(1e-14));
  for (double p : {1e-300, 1e-20, 0.001, 0.02425, 0.3, 0.7, 0.97575, 0.999999}) {
    CHECK(normal_cdf(normal_quantile(p)) == doctest::Approx(p).epsilon(1e-13));
  }
  CHECK(std::isinf(normal_quantile(0)));
  CHECK(std::isnan(normal_quantile(1.5)));
}

TEST_CASE("stats: moments by hand: skew m3/m2^1.5, kurtosis m4/m2^2 (non-excess)") {
  // x = 1 2 3 4 10: mean 4, deviations -3 -2 -1 0 6, m2 = 10, m3 = 36,
  // m4 = 278.8, sample variance 50 / 4.
  const Moments m = moments({1, 2, 3, 4, 10});
  CHECK(m.mean == doctest::Approx(4));
  CHECK(m.std == doctest::Approx(std::sqrt(12.5)));
  CHECK(m.skew == doctest::Approx(36 / std::pow(10, 1.5)));
  CHECK(m.kurtosis == doctest::Approx(2.788));
  CHECK(sharpe_ratio({1, 2, 3, 4, 10}) == doctest::Approx(4 / std::sqrt(12.5)));
  CHECK(std::isnan(sharpe_ratio({2, 2, 2})));
}

TEST_CASE("stats: the DSR paper's numerical example") {
  // Bailey & Lopez de Prado (2014), section "A numerical example": after
  // N = 100 trials the best strategy has annualized SR 2.5 over 5 years of
  // daily returns (T = 1250, 250 days a year), the trials' Sharpe ratios
  // have annualized variance V = 1/2, and the returns have skewness -3 and
  // kurtosis 10. The paper gets SR_0 = 0.1132 per day (annualized 1.79)
  // and DSR = 0.9004. (Recomputed here by hand: Phi^-1(0.99) = 2.3263,
  // Phi^-1(1 - 1/(100 e)) = 2.6810, so E[max z] = 2.5313.)
  const double days = 250;
  const auto d = deflated_sharpe_ratio(2.5 / std::sqrt(days), 1250, -3, 10, 100, 0.5 / days);
  CHECK(d.benchmark == doctest::Approx(0.1132).epsilon(0.001));
  CHECK(d.dsr == doctest::Approx(0.9004).epsilon(0.001));
  // More trials raise the bar; one trial is no selection at all.
  CHECK(deflated_sharpe_ratio(2.5 / std::sqrt(days), 1250, -3, 10, 1000, 0.5 / days).dsr < d.dsr);
  CHECK(expected_max_sharpe(1, 0.5) == 0);
  // PSR against 0 of a normal series is Phi(SR sqrt(T - 1) / sqrt(1 + SR^2 / 2)).
  CHECK(probabilistic_sharpe_ratio(0.1, 0, 101, 0, 3) ==
        doctest::Approx(normal_cdf(0.1 * 10 / std::sqrt(1 + 0.01 / 2))));
}

TEST_CASE("stats: Spearman averages tied ranks") {
  CHECK(average_ranks({3, 1, 2, 2}) == std::vector<double>{4, 1, 2.5, 2.5});
  // Ranks 1 2.5 2.5 4 against 1 3 2 4: 4.5 / sqrt(4.5 * 5).
  CHECK(spearman({1, 2, 2, 3}, {1, 3, 2, 4}) == doctest::Approx(4.5 / std::sqrt(22.5)));
  CHECK(spearman({1, 2, 3}, {30, 20, 10}) == doctest::Approx(-1));
  CHECK(std::isnan(spearman({1, 1, 1}, {1, 2, 3})));
}

TEST_CASE("stats: effective trials from the mean pairwise correlation") {
  const Series same(5, {0.01, -0.02, 0.03, 0.0, 0.01});
  CHECK(mean_pairwise_correlation(same) == doctest::Approx(1));
  CHECK(effective_trials(5, 1) == doctest::Approx(1));
  CHECK(effective_trials(5, 0) == doctest::Approx(5));
  CHECK(effective_trials(5, -0.2) == doctest::Approx(5));  // clamped to N
  CHECK(effective_trials(10, 0.5) == doctest::Approx(5.5));
  CHECK(effective_trials(10, std::nan("")) == doctest::Approx(10));
  // Against the mean of the explicit pairwise correlations.
  const Series rows = noise(6, 50, 11);
  double sum = 0;
  for (int i = 0; i < 6; ++i) {
    for (int j = i + 1; j < 6; ++j) sum += pearson(rows[i], rows[j]);
  }
  CHECK(mean_pairwise_correlation(rows) == doctest::Approx(sum / 15).epsilon(1e-12));
}

TEST_CASE("stats: PBO is 1 when every in-sample winner is the out-of-sample loser") {
  // Two blocks: trial 0 wins the first half and loses the second, trial 1
  // the opposite, so both combinations pick the out-of-sample worst.
  Series rows = {{0.02, 0.03, 0.025, 0.021, -0.02, -0.03, -0.025, -0.021},
                 {-0.02, -0.03, -0.025, -0.021, 0.02, 0.03, 0.025, 0.021}};
  const Pbo p = probability_of_backtest_overfitting(rows, 2);
  CHECK(p.logits.size() == 2);
  CHECK(p.pbo == 1);
  CHECK(p.logits[0] == doctest::Approx(std::log(0.5)));  // rank 1 of 2: omega = 1/3
}

TEST_CASE("stats: PBO is 0 with a trial better on every date set, and C(S, S/2) logits") {
  // Trial i drifts by i * 0.005 a day on noise of 0.01: the last trial is the
  // best in- and out-of-sample, rank N of N, lambda = ln N.
  const Pbo p = probability_of_backtest_overfitting(noise(8, 320, 5, 0.005), 16);
  CHECK(p.logits.size() == 12870);
  CHECK(p.pbo == 0);
  CHECK(p.logits.front() == doctest::Approx(std::log(8.0)));
}

TEST_CASE("stats: PBO of pure noise is near one half") {
  // Each seed's PBO is noisy (combinations share blocks); averaged over 20
  // independent panels the mean's standard error is about 0.05.
  double sum = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    sum += probability_of_backtest_overfitting(noise(10, 160, seed), 8).pbo;
  }
  CHECK(sum / 20 == doctest::Approx(0.5).epsilon(0.3));  // within 0.15
}

TEST_CASE("stats: CSCV refuses shapes it cannot cut, saying what it expected") {
  CHECK_THROWS_WITH_AS(probability_of_backtest_overfitting(noise(3, 100, 1), 5),
                       doctest::Contains("even number of blocks"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(probability_of_backtest_overfitting(noise(1, 100, 1), 4),
                       doctest::Contains("at least 2 trials"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(probability_of_backtest_overfitting(noise(3, 20, 1), 16),
                       doctest::Contains("at least 32 common dates"), std::invalid_argument);
}

TEST_CASE("stats: histogram bins, with outliers in the end bins") {
  CHECK(histogram({-10, -0.5, 0.1, 0.6, 10}, 4, -1, 1) == std::vector<int>{1, 1, 1, 2});
}

}  // namespace
}  // namespace hpo::stats
