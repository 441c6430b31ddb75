#include "trainer/portfolio.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace hpo::trainer {

namespace {

using Book = std::map<uint32_t, double>;  // ticker -> weight

struct Day {
  std::vector<uint32_t> tickers;
  std::vector<double> pred, ret;
};

// Top k by prediction long, bottom k short; ties keep the input order, as in
// score()'s long-short.
Book long_short_book(const Day& d) {
  std::vector<size_t> order(d.pred.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return d.pred[a] > d.pred[b]; });
  const size_t k = std::max<size_t>(1, order.size() / 5);
  Book book;
  for (size_t i = 0; i < k; ++i) {
    book[d.tickers[order[i]]] += 1.0 / double(k);
    book[d.tickers[order[order.size() - 1 - i]]] -= 1.0 / double(k);
  }
  return book;
}

double turnover(const Book& before, const Book& after) {
  double sum = 0;
  for (const auto& [ticker, w] : after) {
    auto it = before.find(ticker);
    sum += std::abs(w - (it == before.end() ? 0.0 : it->second));
  }
  for (const auto& [ticker, w] : before)
    if (!after.count(ticker)) sum += std::abs(w);
  return sum;
}

double book_return(const Book& book, const Day& d) {
  double r = 0;
  for (size_t i = 0; i < d.tickers.size(); ++i) {
    auto it = book.find(d.tickers[i]);
    // A name whose next day is missing earns nothing that day (no NaN).
    if (it != book.end() && std::isfinite(d.ret[i])) r += it->second * d.ret[i];
  }
  return r;
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

DailyPortfolio daily_long_short(const std::vector<uint32_t>& day,
                                const std::vector<uint32_t>& ticker, const std::vector<float>& pred,
                                const std::vector<float>& ret, double cost_bps) {
  std::map<uint32_t, Day> by_day;
  for (size_t k = 0; k < pred.size(); ++k) {
    Day& d = by_day[day[k]];
    d.tickers.push_back(ticker[k]);
    d.pred.push_back(pred[k]);
    d.ret.push_back(ret[k]);
  }
  DailyPortfolio out;
  Book held;
  for (const auto& [d, cross_section] : by_day) {
    if (cross_section.pred.size() < 5) continue;
    Book book = long_short_book(cross_section);
    const double gross = book_return(book, cross_section), traded = turnover(held, book);
    out.days.push_back(d);
    out.gross.push_back(gross);
    out.turnover.push_back(traded);
    out.net.push_back(gross - cost_bps / 1e4 * traded);
    held = std::move(book);
  }
  return out;
}

}  // namespace hpo::trainer
