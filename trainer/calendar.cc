#include "trainer/calendar.h"

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
  std::vector<size_t> names(panel->num_days());
  size_t full = 0, weekend = 0;
  for (size_t d = 0; d < panel->num_days(); ++d) {
    names[d] = names_on(*panel, d);
    if (names[d] < min_names) continue;
    ++full;
    weekend += is_weekend(panel->dates[d]);
  }
  s.trades_weekends = full > 0 && double(weekend) >= kWeekendShare * double(full);
  std::vector<bool> keep(panel->num_days(), true);
  for (size_t d = 0; d < panel->num_days(); ++d) {
    if (names[d] < min_names) {
      keep[d] = false;
      ++s.thin_dates, s.thin_rows += names[d];
    } else if (!s.trades_weekends && is_weekend(panel->dates[d])) {
      keep[d] = false;
      ++s.weekend_dates, s.weekend_rows += names[d];
    }
  }
  *panel = keep_days(*panel, keep);
}

}  // namespace hpo::trainer
