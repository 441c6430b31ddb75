// The Probabilistic and the Deflated Sharpe Ratio: D. H. Bailey and M. Lopez
// de Prado, "The Deflated Sharpe Ratio: Correcting for Selection Bias,
// Backtest Overfitting and Non-Normality", Journal of Portfolio Management
// 40(5), 2014, pp. 94-107. All Sharpe ratios here are per period (not
// annualized), as the paper's formulas take them.
#ifndef HPO_STATS_DEFLATED_SHARPE_H_
#define HPO_STATS_DEFLATED_SHARPE_H_

namespace hpo::stats {

// PSR(SR*) = Phi( (SR - SR*) sqrt(T - 1) / sqrt(1 - skew SR + (kurt - 1) / 4 SR^2) ):
// the probability that the true Sharpe ratio exceeds `benchmark`, given the
// observed `sharpe` over `t` periods with that skewness and (non-excess)
// kurtosis. NaN when t < 2 or the denominator is not positive.
double probabilistic_sharpe_ratio(double sharpe, double benchmark, int t, double skew,
                                  double kurtosis);

// E[max SR] over n independent trials whose Sharpe ratios have variance
// `variance` and true mean 0 (the paper's eq. for SR_0):
//   sqrt(V) ((1 - g) Phi^-1(1 - 1/N) + g Phi^-1(1 - 1/(N e))), g = Euler-Mascheroni.
// n may be fractional (an effective number of trials); 0 for n <= 1, and
// never below 0 (the approximation is negative for n < 1.28).
double expected_max_sharpe(double n, double variance);

struct DeflatedSharpe {
  double sharpe = 0;  // the selected trial's, per period
  double benchmark = 0;  // SR_0 = expected_max_sharpe(n, variance)
  double dsr = 0;  // PSR(SR_0)
};

DeflatedSharpe deflated_sharpe_ratio(double sharpe, int t, double skew, double kurtosis, double n,
                                     double variance);

}  // namespace hpo::stats

#endif  // HPO_STATS_DEFLATED_SHARPE_H_
