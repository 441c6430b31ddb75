#include "hpo/report/selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "hpo/report/sweep_series.h"
#include "hpo/stats/moments.h"
#include "hpo/stats/spearman.h"
#include "hpo/stats/sweep_dsr.h"

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
    std::string& source =
        std::string(split) == "valid" ? s.val_sharpe_source : s.test_sharpe_source;
    *rank_ic = number_attr(t, prefix + "rank_ic");
    *sharpe = number_attr(t, prefix + "sharpe_net");
    if (*sharpe) source = prefix + "sharpe_net";
    const auto series = trial_series(t, split);
    if (!series) continue;
    if (!*rank_ic) *rank_ic = mean_skipping_nan(series->rank_ic);
    *sharpe = stats::sharpe_ratio(series->returns) * std::sqrt(kDaysPerYear);
    source = "daily series";
  }
}

void fill_dsr(const StudyView& view, const AlignedSeries& a, Selection& s) {
  s.n_trials = static_cast<int>(view.trials.size());
  stats::Series own;
  int selected = -1;
  for (size_t i = 0; i < a.trials.size(); ++i) {
    own.push_back(a.own[i].returns);
    if (a.trials[i] == s.selected) selected = static_cast<int>(i);
  }
  const stats::SweepDsr d = stats::sweep_deflated_sharpe(own, a.returns, selected, s.n_trials);
  s.mean_correlation = d.mean_correlation;
  s.n_effective = d.n_effective;
  s.sharpe_variance = d.sharpe_variance;
  s.without_sharpe = d.without_sharpe;
  if (!d.has_dsr) return;
  s.t = d.t;
  s.skew = d.skew;
  s.kurtosis = d.kurtosis;
  s.sharpe = d.dsr.sharpe;
  s.benchmark = d.dsr.benchmark;
  s.dsr = d.dsr.dsr;
  s.has_dsr = true;
}

// The daily series that scores the objective, so that PBO judges the rule
// the sweep selected by: the mean daily RankIC for a RankIC objective, the
// Sharpe ratio of net returns for a Sharpe one; rows negated when
// minimizing, so that larger is always better.
stats::Series pbo_scores(const StudyView& view, const AlignedSeries& a, stats::CscvRule& rule,
                         Selection& s) {
  const bool rank_ic = view.metric.find("rank_ic") != std::string::npos;
  if (!rank_ic && view.metric.find("sharpe") == std::string::npos) {
    s.pbo_series_note = "the objective " + view.metric +
                        " has no daily series: ranked by net-return Sharpe ratio instead";
  }
  rule.score = rank_ic ? stats::Score::kMean : stats::Score::kSharpe;
  rule.robust = s.rule == SelectRule::kRobust;
  s.pbo_series = rank_ic ? "rank_ic" : "returns";
  s.pbo_score =
      std::string(rule.robust ? "robust: blocks' " : "") + (rank_ic ? "mean" : "Sharpe ratio");
  stats::Series rows = rank_ic ? a.rank_ic : a.returns;
  if (view.study.direction == Direction::kMinimize && s.pbo_series_note.empty()) {
    for (auto& row : rows) {
      for (double& v : row) v = -v;
    }
  }
  return rows;
}

void fill_pbo(const StudyView& view, const AlignedSeries& a, int blocks, Selection& s) {
  stats::CscvRule rule;
  const stats::Series scores = pbo_scores(view, a, rule, s);
  try {
    s.pbo = stats::probability_of_backtest_overfitting(scores, blocks, rule);
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
  s.selected = options.chosen ? options.chosen : select_trial(view, options.rule);
  if (options.chosen) s.chosen_by = options.chosen_by;
  s.robust_without_folds = options.rule == SelectRule::kRobust && !any_fold_metrics(view);
  const AlignedSeries a = align_series(view, "valid");
  s.series_trials = static_cast<int>(a.trials.size());
  if (s.series_trials == 0) return s;
  s.common_dates = static_cast<int>(a.dates.size());
  s.dates_differ = a.dates_differ;
  if (s.selected) fill_headline(s);
  fill_dsr(view, a, s);
  fill_pbo(view, a, options.cscv_blocks, s);
  fill_carry_over(view, s);
  return s;
}

std::vector<int> logit_histogram(const stats::Pbo& pbo) {
  return stats::histogram(pbo.logits, static_cast<int>(kLogitHi - kLogitLo), kLogitLo, kLogitHi);
}

}  // namespace hpo
