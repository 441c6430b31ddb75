// The daily-rebalanced long-short portfolio of a prediction, with its
// turnover and returns net of trading costs.
//
// Each scored day, the portfolio holds +1/k in each of the top k names by
// prediction and -1/k in each of the bottom k (k = 20% of the day's names, at
// least one; the same selection as Scores::long_short), so its gross exposure
// is 2. Its turnover that day is the sum over names of |w_today - w_before|,
// where w_before is the previous scored day's book (empty on the first day:
// building the book costs a turnover of 2). Its return is the weighted
// one-day return of the names held, less cost_bps / 10^4 per unit of
// turnover (a one-way cost: buying 1 and selling 1 is a turnover of 2). A
// name whose one-day return is unknown (a missing row) counts as 0.
#ifndef HPO_TRAINER_PORTFOLIO_H_
#define HPO_TRAINER_PORTFOLIO_H_

#include <cstdint>
#include <vector>

namespace hpo::trainer {

struct DailyPortfolio {
  std::vector<uint32_t> days;  // scored days, ascending
  std::vector<double> gross;  // that day's return before costs
  std::vector<double> turnover;  // sum of absolute weight changes
  std::vector<double> net;  // gross - cost_bps / 1e4 * turnover

  double mean_turnover() const;
  // Annualized Sharpe of the daily net returns (sqrt(252), std ddof 1).
  double net_sharpe() const;
};

// Samples k: `ticker[k]` on `day[k]` with prediction `pred[k]` and one-day
// return `ret[k]`. Days with fewer than 5 samples are skipped, as in score().
DailyPortfolio daily_long_short(const std::vector<uint32_t>& day,
                                const std::vector<uint32_t>& ticker, const std::vector<float>& pred,
                                const std::vector<float>& ret, double cost_bps);

// The default cost: 10 basis points per unit of turnover.
constexpr double kDefaultCostBps = 10.0;

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_PORTFOLIO_H_
