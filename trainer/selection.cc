#include "trainer/selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainer/error.h"

namespace hpo::trainer {

ValidationParts split_validation(const DayRange& valid, size_t reach, double select_frac) {
  ValidationParts p;
  p.select.begin = valid.begin;
  p.select.end = valid.begin + size_t(std::floor(double(valid.size()) * select_frac));
  // The same gap as between splits (make_splits): at least one day.
  p.report.begin = p.select.end + std::max<size_t>(reach, 1);
  p.report.end = valid.end;
  if (p.select.size() == 0 || p.report.size() == 0)
    throw UsageError(fmt::format(
        "epoch_select_frac {}: a validation block of {} days leaves {} days to pick the epoch "
        "and {} to report (after a gap of {})",
        select_frac, valid.size(), p.select.size(), p.report.size(), std::max<size_t>(reach, 1)));
  return p;
}

}  // namespace hpo::trainer
