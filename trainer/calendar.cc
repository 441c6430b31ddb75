#include "trainer/calendar.h"

#include <deque>
#include <vector>

namespace hpo::trainer {

namespace {

size_t names_on(const Panel& p, size_t day) {
  size_t n = 0;
  for (size_t t = 0; t < p.num_tickers(); ++t) n += p.present(t, day);
  return n;
}

bool is_weekend(const std::string& iso) { return weekday(parse_date(iso).value_or(0)) >= 5; }

// The panel restricted to the days with keep[day].
Panel keep_days(const Panel& p, const std::vector<bool>& keep) {
  Panel out;
  out.tickers = p.tickers;
  out.summary = p.summary;
  for (size_t d = 0; d < p.num_days(); ++d)
    if (keep[d]) out.dates.push_back(p.dates[d]);
  out.allocate();
  for (size_t t = 0; t < p.num_tickers(); ++t)
    for (size_t d = 0, kept = 0; d < p.num_days(); ++d) {
      if (!keep[d]) continue;
      const size_t from = p.index(t, d), to = out.index(t, kept++);
      out.open[to] = p.open[from];
      out.high[to] = p.high[from];
      out.low[to] = p.low[from];
      out.close[to] = p.close[from];
      out.volume[to] = p.volume[from];
    }
  return out;
}

}  // namespace

void apply_calendar(Panel* panel, size_t min_names) {
  DataSummary& s = panel->summary;
  s.min_names = min_names;
  s.trades_weekends = false;
  std::vector<bool> keep(panel->num_days(), true);
  // The full dates (traded by min_names or more) of the trailing window,
  // oldest first, and how many of them fall on a weekend.
  std::deque<bool> window;
  size_t weekends_in_window = 0;
  for (size_t d = 0; d < panel->num_days(); ++d) {
    const size_t names = names_on(*panel, d);
    if (names < min_names) {
      keep[d] = false;
      ++s.thin_dates, s.thin_rows += names;
      continue;
    }
    const bool weekend = is_weekend(panel->dates[d]);
    window.push_back(weekend);
    weekends_in_window += weekend;
    if (window.size() > kWeekendWindow) {
      weekends_in_window -= window.front();
      window.pop_front();
    }
    if (!weekend) continue;
    // Counted against the whole window even while fewer dates came before:
    // a stray Saturday in a file's first week is 1 of 6 dates, not a market.
    if (weekends_in_window >= kWeekendsInWindow) {
      s.trades_weekends = true;
    } else {
      keep[d] = false;
      ++s.weekend_dates, s.weekend_rows += names;
    }
  }
  *panel = keep_days(*panel, keep);
}

}  // namespace hpo::trainer
