#include "hpo/report/selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "hpo/report/sweep_series.h"
#include "hpo/stats/deflated_sharpe.h"
#include "hpo/stats/effective_trials.h"
#include "hpo/stats/moments.h"
#include "hpo/stats/spearman.h"

namespace hpo {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::optional<double> number_attr(const TrialRecord& t, const std::string& name) {
  const auto it = t.user_attrs.find(name);
  if (it == t.user_attrs.end() || !it->second.is_number()) return std::nullopt;
  return it->second.get<double>();
}

double mean_skipping_nan(const std::vector<double>& x) {
  double sum = 0;
  int n = 0;
  for (double v : x) {
    if (!std::isnan(v)) sum += v, ++n;
  }
  return n > 0 ? sum / n : kNaN;
}

// The selected trial's headline numbers: its final metrics where the
// trainer reported them, else what its series say.
void fill_headline(Selection& s) {
  const TrialRecord& t = *s.selected;
  for (const auto& [split, rank_ic, sharpe] :
       {std::tuple{"valid", &s.val_rank_ic, &s.val_sharpe_net},
        std::tuple{"test", &s.test_rank_ic, &s.test_sharpe_net}}) {
    const std::string prefix = std::string(split) == "valid" ? "val_" : "test_";
    *rank_ic = number_attr(t, prefix + "rank_ic");
    *sharpe = number_attr(t, prefix + "sharpe_net");
    const auto series = trial_series(t, split);
    if (!series) continue;
    if (!*rank_ic) *rank_ic = mean_skipping_nan(series->rank_ic);
    if (!*sharpe) *sharpe = stats::sharpe_ratio(series->returns) * std::sqrt(kDaysPerYear);
  }
}

void fill_dsr(const StudyView& view, const AlignedSeries& a, Selection& s) {
  s.n_trials = static_cast<int>(view.trials.size());
  s.mean_correlation = stats::mean_pairwise_correlation(a.returns);
  s.n_effective = stats::effective_trials(s.n_trials, s.mean_correlation);
  std::vector<double> sharpes;
  const DailySeries* chosen = nullptr;
  for (size_t i = 0; i < a.trials.size(); ++i) {
    const double sr = stats::sharpe_ratio(a.own[i].returns);
    if (std::isfinite(sr)) sharpes.push_back(sr);
    if (a.trials[i] == s.selected) chosen = &a.own[i];
  }
  const stats::Moments across = stats::moments(sharpes);
  s.sharpe_variance = across.std * across.std;
  if (!chosen) return;  // the selected trial has no series
  const stats::Moments m = stats::moments(chosen->returns);
  s.t = m.n;
  s.skew = m.skew;
  s.kurtosis = m.kurtosis;
  const auto d = stats::deflated_sharpe_ratio(m.mean / m.std, s.t, s.skew, s.kurtosis,
                                              s.n_effective, s.sharpe_variance);
  s.sharpe = d.sharpe;
  s.benchmark = d.benchmark;
  s.dsr = d.dsr;
  s.has_dsr = true;
}

void fill_pbo(const AlignedSeries& a, int blocks, Selection& s) {
  try {
    s.pbo = stats::probability_of_backtest_overfitting(a.returns, blocks);
  } catch (const std::invalid_argument& e) {
    s.pbo_note = e.what();
  }
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const size_t n = x.size();
  return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

void fill_carry_over(const StudyView& view, Selection& s) {
  s.carry_spearman = kNaN;
  if (view.metric.rfind("val_", 0) != 0) return;
  s.test_metric = "test_" + view.metric.substr(4);
  std::vector<double> val, test;
  for (const auto& t : view.trials) {
    const auto x = number_attr(t, s.test_metric);
    if (t.state != TrialState::kComplete || !t.value || !x || !std::isfinite(*x) ||
        !std::isfinite(*t.value))
      continue;
    val.push_back(*t.value);
    test.push_back(*x);
  }
  s.carry_trials = static_cast<int>(val.size());
  s.carry_spearman = stats::spearman(val, test);
  if (!test.empty()) s.median_test = median(test);
  if (s.selected) s.selected_test = number_attr(*s.selected, s.test_metric);
}

}  // namespace

Selection compute_selection(const StudyView& view, const SelectionOptions& options) {
  Selection s;
  s.rule = options.rule;
  s.selected = select_trial(view, options.rule);
  const AlignedSeries a = align_series(view, "valid");
  s.series_trials = static_cast<int>(a.trials.size());
  if (s.series_trials == 0) return s;
  s.common_dates = static_cast<int>(a.dates.size());
  s.dates_differ = a.dates_differ;
  if (s.selected) fill_headline(s);
  fill_dsr(view, a, s);
  fill_pbo(a, options.cscv_blocks, s);
  fill_carry_over(view, s);
  return s;
}

std::vector<int> logit_histogram(const stats::Pbo& pbo) {
  return stats::histogram(pbo.logits, static_cast<int>(kLogitHi - kLogitLo), kLogitLo, kLogitHi);
}

}  // namespace hpo
