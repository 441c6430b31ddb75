// Samples grouped by day, for the scores that are computed one day's cross
// section at a time (metrics.h, portfolio.h). Grouping once, by a counting
// sort, replaced a std::map of per-day vectors that cost more than the
// scores themselves (docs/benchmarks.md, "Trial start").
#ifndef HPO_TRAINER_DAY_GROUPS_H_
#define HPO_TRAINER_DAY_GROUPS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hpo::trainer {

struct DayGroups {
  std::vector<uint32_t> days;  // ascending, each once
  // Group g is samples[begin[g] .. begin[g + 1]) of `samples`: positions in
  // the input, in input order within a day (the order every sum runs in).
  std::vector<size_t> begin;
  std::vector<size_t> samples;

  size_t size() const { return days.size(); }
  size_t count(size_t g) const { return begin[g + 1] - begin[g]; }
  const size_t* first(size_t g) const { return samples.data() + begin[g]; }
};

DayGroups group_by_day(const std::vector<uint32_t>& day);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_DAY_GROUPS_H_
