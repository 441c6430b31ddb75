// Cross-sectional scores of a prediction, computed day by day.
#ifndef HPO_TRAINER_METRICS_H_
#define HPO_TRAINER_METRICS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hpo::trainer {

struct Scores {
  double loss = 0;  // MSE of prediction against the normalized target
  double ic = 0;  // mean daily Pearson correlation with the label
  double rank_ic = 0;  // mean daily Spearman correlation (average ranks on ties)
  double rank_icir = 0;  // mean / std (ddof 1) of the daily RankIC
  double sharpe = 0;  // annualized Sharpe of the long-short returns h days apart (sqrt(252 / h))
  double long_short = 0;  // mean long-short return over a holding period (every scored day)
  int days = 0;  // days that were scored
  // The daily-rebalanced portfolio (trainer/portfolio.h), filled by
  // score_samples (dataset.h), which knows the tickers and one-day returns.
  double sharpe_net = 0;  // annualized Sharpe of the daily returns net of costs
  double turnover = 0;  // mean daily turnover
  // Per scored day, ascending: its RankIC (score()) and net return. With
  // score_samples, also the skipped days the book was held through
  // (portfolio.h), marked in daily_skipped, with a NaN RankIC.
  std::vector<uint32_t> daily_days;
  std::vector<double> daily_rank_ic, daily_net;
  std::vector<bool> daily_skipped;
};

// `day[k]` groups the samples; `label` is the raw forward return used for the
// correlations and the portfolio, `target` the normalized label of the loss.
// Each day, the long-short return is the mean label of the top 20% by
// prediction minus that of the bottom 20% (at least one name each). Days with
// fewer than `min_names` samples are skipped; a day with a constant prediction
// or label counts as correlation 0.
//
// With labels over `horizon` days, the returns of consecutive days overlap by
// horizon - 1 days, so their Sharpe annualized by sqrt(252) would overstate
// it. The Sharpe uses non-overlapping returns instead: the first scored day's,
// then each next scored day at least `horizon` days after the last one used;
// each is a horizon-day return, so the annualization is sqrt(252 / horizon).
Scores score(const std::vector<float>& pred, const std::vector<float>& label,
             const std::vector<float>& target, const std::vector<uint32_t>& day, int horizon = 1,
             size_t min_names = 5);

// Positions of `pred` from the highest prediction to the lowest; equal ones
// in input order.
std::vector<size_t> by_prediction(const std::vector<double>& pred);

// Each name's net weight in the long-short book (here and portfolio.h):
// +1/k for each of the k highest predictions, -1/k for each of the k lowest,
// k = n / 5 (at least 1). Names whose predictions tie across a leg's edge
// share its places left, so that the book depends on the predictions alone,
// never on the order the names come in: a model that predicts one value for
// every name holds nothing.
std::vector<double> long_short_weights(const std::vector<double>& pred);

// Spearman rank correlation of two equally long vectors (0 if either is constant).
double spearman(const std::vector<double>& x, const std::vector<double>& y);
double pearson(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_METRICS_H_
