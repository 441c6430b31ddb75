#include "trainer/day_groups.h"

#include <algorithm>
#include <numeric>

namespace hpo::trainer {

DayGroups group_by_day(const std::vector<uint32_t>& day) {
  DayGroups g;
  g.begin.push_back(0);
  if (day.empty()) return g;
  const auto [lo, hi] = std::minmax_element(day.begin(), day.end());
  const size_t span = size_t(*hi - *lo) + 1;
  g.samples.resize(day.size());
  if (span > 4 * day.size() + 4096) {
    // Days far apart (not a panel's calendar): a stable sort instead of a
    // count per day of the span.
    std::iota(g.samples.begin(), g.samples.end(), size_t(0));
    std::stable_sort(g.samples.begin(), g.samples.end(),
                     [&](size_t a, size_t b) { return day[a] < day[b]; });
  } else {
    // A stable counting sort: each day's samples keep their input order.
    std::vector<size_t> next(span + 1, 0);
    for (uint32_t d : day) ++next[d - *lo + 1];
    std::partial_sum(next.begin(), next.end(), next.begin());
    for (size_t k = 0; k < day.size(); ++k) g.samples[next[day[k] - *lo]++] = k;
  }
  for (size_t i = 0; i < g.samples.size(); ++i) {
    const uint32_t d = day[g.samples[i]];
    if (g.days.empty() || g.days.back() != d) {
      if (!g.days.empty()) g.begin.push_back(i);
      g.days.push_back(d);
    }
  }
  g.begin.push_back(g.samples.size());
  return g;
}

}  // namespace hpo::trainer
