#include "trainer/cv.h"

#include <fmt/format.h>

#include <algorithm>

#include "trainer/error.h"

namespace hpo::trainer {

namespace {

// [begin, end) when it holds a day, else nothing.
void add_range(std::vector<DayRange>* out, size_t begin, size_t end) {
  if (end > begin) out->push_back({begin, end});
}

std::vector<Fold> walk_forward(size_t begin, size_t end, size_t gap, size_t embargo,
                               size_t k_folds) {
  const size_t block = (end - begin) / (k_folds + 1);
  std::vector<Fold> folds;
  for (size_t k = 0; k < k_folds; ++k) {
    Fold f;
    f.valid = {begin + (k + 1) * block, k + 1 == k_folds ? end : begin + (k + 2) * block};
    if (f.valid.begin >= begin + gap + embargo)
      add_range(&f.train, begin, f.valid.begin - gap - embargo);
    folds.push_back(f);
  }
  return folds;
}

std::vector<Fold> purged_kfold(size_t begin, size_t end, size_t gap, size_t embargo,
                               size_t k_folds) {
  const size_t block = (end - begin) / k_folds;
  std::vector<Fold> folds;
  for (size_t k = 0; k < k_folds; ++k) {
    Fold f;
    f.valid = {begin + k * block, k + 1 == k_folds ? end : begin + (k + 1) * block};
    if (f.valid.begin >= begin + gap) add_range(&f.train, begin, f.valid.begin - gap);
    add_range(&f.train, f.valid.end + gap + embargo, end);
    folds.push_back(f);
  }
  return folds;
}

}  // namespace

size_t Fold::last_day_read(size_t reach) const {
  size_t last = valid.end - 1 + reach;
  for (const DayRange& r : train) last = std::max(last, r.end - 1 + reach);
  return last;
}

std::vector<Fold> make_folds(const Splits& splits, size_t reach, const CvSpec& cv) {
  const size_t gap = std::max<size_t>(reach, 1), embargo = size_t(std::max(cv.embargo_days, 0));
  const size_t begin = splits.train.begin, end = splits.valid.end,
               k_folds = size_t(std::max(cv.folds, 1));
  std::vector<Fold> folds;
  if (cv.scheme == "walk_forward")
    folds = walk_forward(begin, end, gap, embargo, k_folds);
  else if (cv.scheme == "purged_kfold")
    folds = purged_kfold(begin, end, gap, embargo, k_folds);
  else
    throw UsageError(fmt::format("cv_scheme: unknown scheme '{}'", cv.scheme));
  for (size_t k = 0; k < folds.size(); ++k) {
    if (folds[k].train.empty() || folds[k].valid.size() == 0)
      throw UsageError(fmt::format(
          "cv: {} {} folds do not fit in the {} days before the test window: fold {} has {} "
          "training and {} "
          "validation days (label reach {}, embargo {} days); lower cv_folds or cv_embargo_days, "
          "or use more days",
          k_folds, cv.scheme, end - begin, k, folds[k].train.empty() ? 0 : folds[k].train[0].size(),
          folds[k].valid.size(), reach, embargo));
  }
  return folds;
}

}  // namespace hpo::trainer
