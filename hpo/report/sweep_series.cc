#include "hpo/report/sweep_series.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace hpo {

namespace {

bool numbers(const nlohmann::json& array, bool null_is_nan, std::vector<double>& out) {
  if (!array.is_array()) return false;
  for (const auto& v : array) {
    if (v.is_number())
      out.push_back(v.get<double>());
    else if (v.is_null() && null_is_nan)
      out.push_back(std::numeric_limits<double>::quiet_NaN());
    else
      return false;
  }
  return true;
}

}  // namespace

std::optional<DailySeries> trial_series(const TrialRecord& trial, const std::string& split) {
  const auto it = trial.system_attrs.find("hpo:series:" + split);
  if (it == trial.system_attrs.end() || !it->second.is_object()) return std::nullopt;
  const auto& j = it->second;
  DailySeries s;
  s.split = split;
  const auto dates = j.find("dates");
  if (dates == j.end() || !dates->is_array()) return std::nullopt;
  for (const auto& d : *dates) {
    if (!d.is_string()) return std::nullopt;
    s.dates.push_back(d.get<std::string>());
  }
  if (!numbers(j.value("returns", nlohmann::json()), false, s.returns) ||
      !numbers(j.value("rank_ic", nlohmann::json()), true, s.rank_ic) ||
      s.returns.size() != s.dates.size() || s.rank_ic.size() != s.dates.size() ||
      !std::is_sorted(s.dates.begin(), s.dates.end())) {
    return std::nullopt;
  }
  return s;
}

AlignedSeries align_series(const StudyView& view, const std::string& split) {
  AlignedSeries a;
  for (const auto& t : view.trials) {
    auto s = trial_series(t, split);
    if (!s) continue;
    if (a.trials.empty()) {
      a.dates = s->dates;
    } else {
      std::vector<std::string> common;
      std::set_intersection(a.dates.begin(), a.dates.end(), s->dates.begin(), s->dates.end(),
                            std::back_inserter(common));
      if (common.size() != a.dates.size() || common.size() != s->dates.size())
        a.dates_differ = true;
      a.dates = std::move(common);
    }
    a.trials.push_back(&t);
    a.own.push_back(std::move(*s));
  }
  for (const auto& s : a.own) {
    std::vector<double> returns, rank_ic;
    size_t j = 0;  // both date lists are sorted
    for (const auto& d : a.dates) {
      while (s.dates[j] != d) ++j;
      returns.push_back(s.returns[j]);
      rank_ic.push_back(s.rank_ic[j]);
    }
    a.returns.push_back(std::move(returns));
    a.rank_ic.push_back(std::move(rank_ic));
  }
  return a;
}

}  // namespace hpo
