#include "trainer/splits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "trainer/error.h"

namespace hpo::trainer {

Splits make_splits(size_t num_days, size_t first_day, size_t reach, double train_frac,
                   double valid_frac, const std::string& source) {
  const size_t gap = std::max<size_t>(reach, 1);
  // The last `gap` days have no label; two gaps separate the three blocks.
  const size_t reserved = first_day + 3 * gap;
  if (num_days <= reserved + 3) {
    throw UsageError(fmt::format(
        "{}: {} days are too few: a warm-up of {} days, a gap of {} days (how far labels look "
        "ahead) after each of the train, validation and test blocks, and days for the blocks need "
        "at least {}",
        source, num_days, first_day, gap, reserved + 4));
  }
  const double usable = double(num_days - reserved);
  Splits s;
  s.train.begin = first_day;
  s.train.end = s.train.begin + size_t(std::floor(usable * train_frac));
  s.valid.begin = s.train.end + gap;
  s.valid.end = s.valid.begin + size_t(std::floor(usable * valid_frac));
  s.test.begin = s.valid.end + gap;
  s.test.end = num_days - gap;
  if (s.train.size() == 0 || s.valid.size() == 0 || s.test.size() == 0)
    throw UsageError(fmt::format("{}: a split is empty with {} days (train {}, valid {}, test {})",
                                 source, num_days, s.train.size(), s.valid.size(), s.test.size()));
  return s;
}

size_t warmup_days(size_t lookback) { return kLongestWindow + std::max<size_t>(lookback, 1) - 1; }

std::vector<Sample> samples_in(const FeatureSet& fs, const DayRange& range, size_t lookback) {
  const size_t end = std::min(range.end, fs.num_days), warmup = warmup_days(lookback);
  auto eligible = [&](size_t i, size_t t) {
    const size_t first = i < fs.first_row.size() ? fs.first_row[i] : 0;
    return t >= first + warmup && std::isfinite(fs.target[fs.cell(i, t)]);
  };
  std::vector<size_t> names(end > range.begin ? end - range.begin : 0, 0);
  for (size_t i = 0; i < fs.num_tickers; ++i)
    for (size_t t = range.begin; t < end; ++t) names[t - range.begin] += eligible(i, t);
  std::vector<Sample> out;
  for (size_t i = 0; i < fs.num_tickers; ++i)
    for (size_t t = range.begin; t < end; ++t)
      if (names[t - range.begin] >= fs.min_names && eligible(i, t))
        out.push_back({uint32_t(i), uint32_t(t)});
  return out;
}

std::vector<Sample> thin_dates(const std::vector<Sample>& samples, const DayRange& range,
                               int64_t max) {
  if (max <= 0 || samples.empty()) return samples;
  uint32_t first = UINT32_MAX;
  for (const Sample& s : samples) first = std::min(first, s.day);
  size_t names = 0;
  for (const Sample& s : samples) names += s.day == first;
  const size_t days = range.end > first ? range.end - first : 1;
  const size_t expected = names * days;
  if (expected <= size_t(max)) return samples;
  const size_t k = (expected + size_t(max) - 1) / size_t(max);
  std::vector<Sample> out;
  for (const Sample& s : samples)
    if ((s.day - first) % k == 0) out.push_back(s);
  return out;
}

}  // namespace hpo::trainer
