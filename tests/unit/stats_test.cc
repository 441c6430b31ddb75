#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "hpo/stats/cscv.h"
#include "hpo/stats/deflated_sharpe.h"
#include "hpo/stats/effective_trials.h"
#include "hpo/stats/moments.h"
#include "hpo/stats/normal.h"
#include "hpo/stats/spearman.h"
#include "hpo/stats/sweep_dsr.h"

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

// N series sharing a common daily shock with weight rho: no skill, only
// correlation.
Series correlated_noise(int trials, int days, double rho, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0, 0.01);
  Series rows(trials, std::vector<double>(days));
  for (int d = 0; d < days; ++d) {
    const double common = z(rng);
    for (auto& row : rows) row[d] = std::sqrt(rho) * common + std::sqrt(1 - rho) * z(rng);
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

TEST_CASE("stats: SR0 is never below 0, so DSR never exceeds PSR(0)") {
  // The approximation is negative for N_eff < 1.28: -0.69 sd at N = 1.1.
  CHECK(expected_max_sharpe(1.1, 1e-4) == 0);
  CHECK(expected_max_sharpe(1.27, 1e-4) == 0);
  CHECK(expected_max_sharpe(1.5, 1e-4) > 0);
  const auto d = deflated_sharpe_ratio(0.05, 250, 0, 3, 1.05, 1e-3);
  CHECK(d.dsr == doctest::Approx(probabilistic_sharpe_ratio(0.05, 0, 250, 0, 3)));
}

TEST_CASE("stats: constant returns have no Sharpe: left out of V, and CSCV stays stable") {
  // 0.001 every day: sum-of-squares rounding leaves a spread near 1e-19.
  std::mt19937_64 rng(4);
  Series rows = correlated_noise(6, 320, 0, rng);
  rows[0].assign(320, 0.001);
  rows[0][7] = 0.001 + 1e-18;  // spread from rounding, not risk
  CHECK(std::isnan(sharpe_ratio(rows[0])));
  const SweepDsr with = sweep_deflated_sharpe(rows, rows, 1, 6);
  const Series rest(rows.begin() + 1, rows.end());
  const SweepDsr without = sweep_deflated_sharpe(rest, rest, 0, 6);
  CHECK(with.without_sharpe == 1);
  CHECK(with.sharpe_variance == doctest::Approx(without.sharpe_variance));
  CHECK(with.dsr.dsr == doctest::Approx(without.dsr.dsr));
  CHECK(with.mean_correlation == doctest::Approx(without.mean_correlation));
  CHECK_FALSE(sweep_deflated_sharpe(rows, rows, 0, 6).has_dsr);
  // In CSCV its Sharpe ratio is 0 on every block set, not +-1e13: the
  // logits are those of the panel where it is exactly 0.
  Series zero = rows;
  zero[0].assign(320, 0.0);
  CHECK(probability_of_backtest_overfitting(rows, 8).logits ==
        probability_of_backtest_overfitting(zero, 8).logits);
}

TEST_CASE("stats: Spearman averages tied ranks") {
  CHECK(average_ranks({3, 1, 2, 2}) == std::vector<double>{4, 1, 2.5, 2.5});
  // Ranks 1 2.5 2.5 4 against 1 3 2 4: 4.5 / sqrt(4.5 * 5).
  CHECK(spearman({1, 2, 2, 3}, {1, 3, 2, 4}) == doctest::Approx(4.5 / std::sqrt(22.5)));
  CHECK(spearman({1, 2, 3}, {30, 20, 10}) == doctest::Approx(-1));
  CHECK(std::isnan(spearman({1, 1, 1}, {1, 2, 3})));
}

// A value's average rank is 1 + (the values below it) + (its equals but
// itself) / 2, counted directly: the definition, not a sort.
TEST_CASE("stats: average ranks match their definition, with ties, signed zeros and NaN") {
  std::mt19937 rng(11);
  for (int rep = 0; rep < 400; ++rep) {
    std::vector<double> x(rng() % 60);
    for (double& v : x) {
      v = std::normal_distribution<double>()(rng);
      if (rep % 3 == 1) v = std::round(v * 2);  // many ties
      if (rep % 3 == 2) v = (rng() % 2) ? 0.0 : -0.0;  // equal, with different bits
    }
    const std::vector<double> ranks = average_ranks(x);
    REQUIRE(ranks.size() == x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      double below = 0, equal = 0;
      for (double v : x) below += v < x[i], equal += v == x[i];
      CHECK(ranks[i] == 1 + below + (equal - 1) / 2);
    }
  }
  // With a NaN (a diverged trial's value) the ranks stay a permutation's
  // average: they are finite and sum to n (n + 1) / 2.
  const std::vector<double> ranks = average_ranks({2, NAN, 1, 3, NAN});
  double sum = 0;
  for (double r : ranks) {
    CHECK(std::isfinite(r));
    sum += r;
  }
  CHECK(sum == 15);
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

// Mean PBO over 400 noise panels of 5 trials (odd N: the median rank
// exists) x 80 days, S = 8, through the real CSCV with the given splits.
// Exactly 1/2 for a correct CSCV: its out-of-sample days are independent of
// the in-sample winner, whose rank is then uniform. One panel's PBO has a
// standard deviation near 0.2, so the mean's is 0.01 and the band +-0.035
// is 3.5 standard errors.
double mean_noise_pbo(const std::vector<Split>& splits, CscvRule rule = {}) {
  std::mt19937_64 rng(1);
  double sum = 0;
  for (int panel = 0; panel < 400; ++panel)
    sum +=
        probability_of_backtest_overfitting(correlated_noise(5, 80, 0, rng), 8, splits, rule).pbo;
  return sum / 400;
}
constexpr double kPboBand = 0.035;

TEST_CASE("stats: CSCV splits take S/2 blocks in sample and the other S/2 out") {
  const auto splits = cscv_splits(8);
  CHECK(splits.size() == 70);
  for (const Split& s : splits) {
    int in = 0;
    for (int b = 0; b < 8; ++b) {
      CHECK(s.in[b] != s.out[b]);  // disjoint, and together every block
      in += s.in[b];
    }
    CHECK(in == 4);
  }
}

TEST_CASE("stats: mean PBO over 400 noise panels is 1/2 (odd N included), and by every rule") {
  const auto splits = cscv_splits(8);
  CHECK(mean_noise_pbo(splits) == doctest::Approx(0.5).epsilon(kPboBand / 0.5));
  CHECK(mean_noise_pbo(splits, {Score::kMean, false}) ==
        doctest::Approx(0.5).epsilon(kPboBand / 0.5));
  CHECK(mean_noise_pbo(splits, {Score::kSharpe, true}) ==
        doctest::Approx(0.5).epsilon(kPboBand / 0.5));
}

TEST_CASE("stats: the noise-PBO check catches a CSCV that leaks in-sample days out of sample") {
  // Mutation 1: one in-sample block also out of sample (mean near 0.38).
  std::vector<Split> leaky = cscv_splits(8);
  for (Split& s : leaky) s.out[std::find(s.in.begin(), s.in.end(), true) - s.in.begin()] = true;
  CHECK(mean_noise_pbo(leaky) < 0.5 - kPboBand);
  // Mutation 2: every day scored out of sample (mean near 0.15).
  std::vector<Split> all_days = cscv_splits(8);
  for (Split& s : all_days) s.out.assign(8, true);
  CHECK(mean_noise_pbo(all_days) < 0.5 - kPboBand);
}

TEST_CASE("stats: an in-sample winner at the median rank out of sample counts as half overfit") {
  // Three trials; out of sample trial 0 (the in-sample winner) is the middle
  // one on every split: rank 2 of 3, lambda = 0, half overfit.
  Series rows(3, std::vector<double>(8));
  for (int d = 0; d < 8; ++d) {
    rows[0][d] = d < 4 ? 0.05 + 0.001 * d : 0.0 + 0.001 * d;
    rows[1][d] = d < 4 ? 0.0 + 0.001 * (d % 2) : -0.02 + 0.001 * (d % 2);
    rows[2][d] = d < 4 ? 0.0 - 0.001 * (d % 2) : 0.02 - 0.001 * (d % 2);
  }
  const Pbo p = probability_of_backtest_overfitting(rows, 2, {Score::kMean, false});
  CHECK(p.logits[1] == doctest::Approx(0.0));  // in: the first half
  CHECK(p.pbo == doctest::Approx(0.75));  // the other split: rank 1 of 3
}

TEST_CASE("stats: a signal panel: mean PBO near 0 and DSR above 0.95") {
  std::mt19937_64 rng(3);
  double pbo = 0, dsr = 0;
  for (int panel = 0; panel < 50; ++panel) {
    Series rows = correlated_noise(10, 320, 0, rng);
    for (int i = 0; i < 10; ++i) {
      for (double& v : rows[i]) v += 0.0015 * i;  // trial i earns i * 0.15 sd a day
    }
    pbo += probability_of_backtest_overfitting(rows, 16).pbo / 50;
    dsr += sweep_deflated_sharpe(rows, rows, 9, 10).dsr.dsr / 50;
  }
  CHECK(pbo < 0.05);
  CHECK(dsr > 0.95);
}

// The selected trial of a noise sweep is the best Sharpe ratio of 20 trials
// x 480 days: its DSR, as `hpo best` computes it, over 1000 panels.
struct NoiseDsr {
  double mean = 0, above_95 = 0;
};
NoiseDsr noise_dsr(double rho, uint64_t seed) {
  std::mt19937_64 rng(seed);
  NoiseDsr r;
  const int panels = 1000;
  for (int panel = 0; panel < panels; ++panel) {
    const Series rows = correlated_noise(20, 480, rho, rng);
    int best = 0;
    for (int i = 1; i < 20; ++i) {
      if (sharpe_ratio(rows[i]) > sharpe_ratio(rows[best])) best = i;
    }
    const double dsr = sweep_deflated_sharpe(rows, rows, best, 20).dsr.dsr;
    r.mean += dsr / panels;
    r.above_95 += (dsr > 0.95) / static_cast<double>(panels);
  }
  return r;
}

TEST_CASE(
    "stats: DSR of the best of 20 noise trials: mean 1/2, and the false-positive rates the docs "
    "state") {
  // Independent trials: the selected Sharpe ratio sits at its expected
  // maximum on average (a DSR that ignored the selection would average
  // about 0.97); P(DSR > 0.95) measured 0.15%.
  const NoiseDsr independent = noise_dsr(0, 5);
  CHECK(independent.mean == doctest::Approx(0.5).epsilon(0.1));
  CHECK(independent.above_95 <= 0.01);
  // Correlated (rho = 0.8): V and N_eff both shrink, and P(DSR > 0.95)
  // rises to about 8%, as docs/overfitting.md states.
  const NoiseDsr correlated = noise_dsr(0.8, 6);
  CHECK(correlated.above_95 > 0.05);
  CHECK(correlated.above_95 < 0.11);
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
