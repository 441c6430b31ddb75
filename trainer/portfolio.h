// The daily-rebalanced long-short portfolio of a prediction, with its
// turnover and returns net of trading costs.
//
// Each scored day, the portfolio holds +1/k in each of the top k names by
// prediction and -1/k in each of the bottom k (k = 20% of the day's names, at
// least one; the same selection as Scores::long_short, names tied at a leg's
// edge sharing it: long_short_weights), so its gross exposure is 2 (less when
// every name ties: a constant prediction holds nothing). Its turnover that day is the sum over
// names of |w_today - w_before|, where w_before is the previous scored day's book (empty on the
// first day: building the book costs a turnover of 2). Its return is the weighted one-day return of
// the names held, less cost_bps / 10^4 per unit of turnover (a one-way cost: buying 1 and selling 1
// is a turnover of 2).
//
// A name whose one-day return is NaN cannot be entered (no price on the
// entry day): its order is not filled and its weight stays in cash. A held
// name that is gone (no row today, or no price to trade at) was closed at its
// last print, which its previous return already counted (features.h): it
// leaves the book as cash, without a trade, so a delisting crash is in the
// P&L and the dead name costs no turnover.
//
// Skipped days (fewer than min_names samples, which nothing trades on) that
// lie between two scored days are held through: the book earns its names'
// returns of that day and drifts, with no trade, and the day is in the
// series, marked skipped. Closing the book instead would charge a round
// trip for a day the model had no opinion on; jumping over the day, as
// before, dropped its P&L and treated the two days around it as adjacent.
#ifndef HPO_TRAINER_PORTFOLIO_H_
#define HPO_TRAINER_PORTFOLIO_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace hpo::trainer {

struct DailyPortfolio {
  std::vector<uint32_t> days;  // scored and held-through days, ascending
  std::vector<bool> skipped;  // per day: held through, not scored
  std::vector<double> gross;  // that day's return before costs
  std::vector<double> turnover;  // sum of absolute weight changes
  std::vector<double> net;  // gross - cost_bps / 1e4 * turnover

  double mean_turnover() const;
  // Annualized Sharpe of the daily net returns (sqrt(252), std ddof 1).
  double net_sharpe() const;
};

// The days a book is held through without trading, and what a held name
// earns on one of them: its one-day log return (NaN: it is gone).
struct HoldThrough {
  std::vector<uint32_t> days;  // ascending
  std::function<double(uint32_t ticker, uint32_t day)> ret;
};

// Samples k: `ticker[k]` on `day[k]` with prediction `pred[k]` and one-day
// return `ret[k]`. Days with fewer than `min_names` samples are not scored,
// as in score(); `hold` days between scored days are held through.
DailyPortfolio daily_long_short(const std::vector<uint32_t>& day,
                                const std::vector<uint32_t>& ticker, const std::vector<float>& pred,
                                const std::vector<float>& ret, double cost_bps,
                                size_t min_names = 5, const HoldThrough& hold = {});

// The default cost: 10 basis points per unit of turnover.
constexpr double kDefaultCostBps = 10.0;

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_PORTFOLIO_H_
