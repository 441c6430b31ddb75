#include "trainer/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "hpo/ranks/ranks.h"
#include "trainer/day_groups.h"

namespace hpo::trainer {

namespace {

double mean(const std::vector<double>& x) {
  return x.empty() ? 0 : std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
}

double sample_std(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  double m = mean(x), ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / double(x.size() - 1));
}

// Mean return of the top 20% by prediction minus the bottom 20%. Labels are
// log returns; a position earns the simple return e^l - 1 (log returns do not
// add across names).
double long_short(const std::vector<double>& pred, const std::vector<double>& label) {
  const std::vector<double> w = long_short_weights(pred);
  double sum = 0;
  for (size_t i = 0; i < w.size(); ++i)
    if (w[i] != 0) sum += w[i] * std::expm1(label[i]);
  return sum;
}

double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

// The annualized Sharpe of the `returns` of `days` (ascending) that do not
// overlap: each kept one starts at least `horizon` days after the last kept.
double non_overlapping_sharpe(const std::vector<uint32_t>& days, const std::vector<double>& returns,
                              int horizon) {
  std::vector<double> kept;
  uint32_t next = 0;
  for (size_t k = 0; k < days.size(); ++k) {
    if (!kept.empty() && days[k] < next) continue;
    kept.push_back(returns[k]);
    next = days[k] + uint32_t(horizon);
  }
  return ratio(mean(kept), sample_std(kept)) * std::sqrt(252.0 / double(horizon));
}

}  // namespace

std::vector<size_t> by_prediction(const std::vector<double>& pred) {
  return ranks::stable_order(pred, /*descending=*/true);
}

std::vector<double> long_short_weights(const std::vector<double>& pred) {
  const size_t n = pred.size();
  std::vector<double> w(n, 0.0);
  if (n == 0) return w;
  const std::vector<size_t> order = by_prediction(pred);
  const double k = double(std::max<size_t>(1, n / 5));
  // One leg, from one end of `order`: each group of equal predictions gets
  // its share of the places left, a whole place each while they last.
  auto leg = [&](bool top, double sign) {
    auto at = [&](size_t m) { return top ? order[m] : order[n - 1 - m]; };
    double left = k;
    for (size_t i = 0; i < n && left > 1e-9;) {
      size_t j = i;
      do ++j;
      while (j < n && pred[at(j)] == pred[at(i)]);
      const double share = std::min(1.0, left / double(j - i));
      for (size_t m = i; m < j; ++m) w[at(m)] += sign * share / k;
      left -= share * double(j - i);
      i = j;
    }
  };
  leg(true, 1.0);
  leg(false, -1.0);
  return w;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = mean(x), my = mean(y), sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return ratio(sxy, std::sqrt(sxx * syy));
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  const double r = ranks::spearman(x, y);
  return std::isnan(r) ? 0.0 : r;
}

Scores score(const std::vector<float>& pred, const std::vector<float>& label,
             const std::vector<float>& target, const std::vector<uint32_t>& day, int horizon,
             size_t min_names) {
  Scores s;
  double sq = 0;
  for (size_t k = 0; k < pred.size(); ++k)
    sq += double(pred[k] - target[k]) * double(pred[k] - target[k]);
  s.loss = pred.empty() ? 0 : sq / double(pred.size());
  const DayGroups groups = group_by_day(day);
  std::vector<double> ics, rank_ics, returns;
  std::vector<uint32_t> days;  // of `returns`, ascending
  std::vector<double> p, l;  // one day's, reused
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups.count(g) < min_names) continue;
    p.clear();
    l.clear();
    for (const size_t* k = groups.first(g); k != groups.first(g + 1); ++k) {
      p.push_back(pred[*k]);
      l.push_back(label[*k]);
    }
    ics.push_back(pearson(p, l));
    rank_ics.push_back(spearman(p, l));
    returns.push_back(long_short(p, l));
    days.push_back(groups.days[g]);
  }
  s.days = int(ics.size());
  s.daily_days = days;
  s.daily_rank_ic = rank_ics;
  s.daily_skipped.assign(days.size(), false);
  s.ic = mean(ics);
  s.rank_ic = mean(rank_ics);
  s.rank_icir = ratio(s.rank_ic, sample_std(rank_ics));
  s.long_short = mean(returns);
  s.sharpe = non_overlapping_sharpe(days, returns, std::max(horizon, 1));
  return s;
}

}  // namespace hpo::trainer
