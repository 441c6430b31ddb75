#include "trainer/portfolio.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "trainer/day_groups.h"
#include "trainer/metrics.h"

namespace hpo::trainer {

namespace {

// Weights by ticker, ascending by ticker: the order turnover's sums run in.
// A sorted vector rather than a map: a book has a few hundred names, looked
// up once for each of the day's names.
using Position = std::pair<uint32_t, double>;
using Book = std::vector<Position>;

struct Day {
  std::vector<uint32_t> tickers;
  std::vector<double> pred, ret;
};

// Where `ticker` is in `book`, or book.size() when the book does not hold it.
size_t position(const Book& book, uint32_t ticker) {
  auto it = std::lower_bound(book.begin(), book.end(), ticker,
                             [](const Position& p, uint32_t t) { return p.first < t; });
  return it != book.end() && it->first == ticker ? size_t(it - book.begin()) : book.size();
}

// Top k by prediction long, bottom k short (long_short_weights: names tied
// at a leg's edge share it). A name that cannot be entered (NaN return) keeps
// its weight in cash: its order is not filled.
Book long_short_book(const Day& d) {
  const std::vector<double> w = long_short_weights(d.pred);
  Book book;
  for (size_t i = 0; i < w.size(); ++i)
    if (w[i] != 0 && std::isfinite(d.ret[i])) book.emplace_back(d.tickers[i], w[i]);
  std::sort(book.begin(), book.end(),
            [](const Position& a, const Position& b) { return a.first < b.first; });
  return book;
}

// Removes the held names that are gone on day `d`: no row, or no price to
// trade at. Their positions were closed at the last print (features.h).
void drop_closed(Book* held, const Day& d) {
  std::vector<char> tradable(held->size(), 0);
  for (size_t i = 0; i < d.tickers.size(); ++i)
    if (std::isfinite(d.ret[i]))
      if (const size_t p = position(*held, d.tickers[i]); p < held->size()) tradable[p] = 1;
  size_t kept = 0;
  for (size_t i = 0; i < held->size(); ++i)
    if (tradable[i]) (*held)[kept++] = (*held)[i];
  held->resize(kept);
}

double turnover(const Book& before, const Book& after) {
  double sum = 0;
  for (const auto& [ticker, w] : after) {
    const size_t b = position(before, ticker);
    sum += std::abs(w - (b < before.size() ? before[b].second : 0.0));
  }
  for (const auto& [ticker, w] : before)
    if (position(after, ticker) == after.size()) sum += std::abs(w);
  return sum;
}

// A name's simple return from its one-day log return: positions compound
// in price, so a book earns sum w * (e^r - 1), not sum w * r (for a book long
// volatile names and short quiet ones, the log-return sum understates it by
// about half the variance gap). A name whose next day is missing earns
// nothing that day (no NaN).
double simple_return(double log_return) {
  return std::isfinite(log_return) ? std::expm1(log_return) : 0.0;
}

double book_return(const Book& book, const Day& d) {
  double r = 0;
  for (size_t i = 0; i < d.tickers.size(); ++i)
    if (const size_t p = position(book, d.tickers[i]); p < book.size())
      r += book[p].second * simple_return(d.ret[i]);
  return r;
}

// The book's weights at the end of the day it earned `gross` over: each
// position's value moved by its own return and the capital by the book's,
// so w' = w (1 + r) / (1 + gross). Rebalancing trades from these, not from
// the weights set the day before.
Book drifted(Book book, const Day& d, double gross) {
  for (size_t i = 0; i < d.tickers.size(); ++i)
    if (const size_t p = position(book, d.tickers[i]); p < book.size())
      book[p].second *= 1.0 + simple_return(d.ret[i]);
  for (auto& [ticker, w] : book) w /= 1.0 + gross;
  return book;
}

}  // namespace

double DailyPortfolio::mean_turnover() const {
  return turnover.empty()
             ? 0
             : std::accumulate(turnover.begin(), turnover.end(), 0.0) / double(turnover.size());
}

double DailyPortfolio::net_sharpe() const {
  if (net.size() < 2) return 0;
  const double m = std::accumulate(net.begin(), net.end(), 0.0) / double(net.size());
  double ss = 0;
  for (double r : net) ss += (r - m) * (r - m);
  const double sd = std::sqrt(ss / double(net.size() - 1));
  return sd > 0 ? m / sd * std::sqrt(252.0) : 0;
}

namespace {

// The held book's day `day` with no trade: its names' returns then.
Day held_day(const Book& held, const HoldThrough& hold, uint32_t day) {
  Day d;
  for (const auto& [ticker, w] : held) {
    d.tickers.push_back(ticker);
    d.pred.push_back(0);
    d.ret.push_back(hold.ret(ticker, day));
  }
  return d;
}

void record(DailyPortfolio* out, uint32_t day, bool skipped, double gross, double traded,
            double cost_bps) {
  out->days.push_back(day);
  out->skipped.push_back(skipped);
  out->gross.push_back(gross);
  out->turnover.push_back(traded);
  out->net.push_back(gross - cost_bps / 1e4 * traded);
}

}  // namespace

DailyPortfolio daily_long_short(const std::vector<uint32_t>& day,
                                const std::vector<uint32_t>& ticker, const std::vector<float>& pred,
                                const std::vector<float>& ret, double cost_bps, size_t min_names,
                                const HoldThrough& hold) {
  const DayGroups groups = group_by_day(day);
  DailyPortfolio out;
  Book held;
  Day cross_section;  // one day's, reused
  auto skipped = hold.days.begin();
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups.count(g) < min_names) continue;
    const uint32_t d = groups.days[g];
    cross_section.tickers.clear();
    cross_section.pred.clear();
    cross_section.ret.clear();
    for (const size_t* k = groups.first(g); k != groups.first(g + 1); ++k) {
      cross_section.tickers.push_back(ticker[*k]);
      cross_section.pred.push_back(pred[*k]);
      cross_section.ret.push_back(ret[*k]);
    }
    for (; skipped != hold.days.end() && *skipped < d; ++skipped) {
      if (out.days.empty()) continue;  // before the first book: nothing held
      const Day today = held_day(held, hold, *skipped);
      drop_closed(&held, today);
      const double gross = book_return(held, today);
      record(&out, *skipped, true, gross, 0, cost_bps);
      held = drifted(held, today, gross);
    }
    drop_closed(&held, cross_section);
    Book book = long_short_book(cross_section);
    const double gross = book_return(book, cross_section), traded = turnover(held, book);
    record(&out, d, false, gross, traded, cost_bps);
    held = drifted(book, cross_section, gross);
  }
  return out;
}

}  // namespace hpo::trainer
