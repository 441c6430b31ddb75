// How far to trust the trial a sweep selected (issue #15): its validation
// and test numbers, its Deflated Sharpe Ratio, the sweep's Probability of
// Backtest Overfitting and how the validation ranking carried over to test.
// Computed from the trials' stored daily series and final metrics; see
// docs/overfitting.md for the formulas and how to read them.
#ifndef HPO_REPORT_SELECTION_H_
#define HPO_REPORT_SELECTION_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hpo/report/robust_select.h"
#include "hpo/report/study_view.h"
#include "hpo/stats/cscv.h"

namespace hpo {

// Trading days a year, to annualize per-day Sharpe ratios for display.
constexpr double kDaysPerYear = 252;

struct SelectionOptions {
  SelectRule rule = SelectRule::kBestValue;
  int cscv_blocks = 16;  // S, even
  // The trial to judge instead of the rule's (`hpo export` picked it from a
  // Pareto front, or by --trial); null: the rule picks.
  const TrialRecord* chosen = nullptr;
  std::string chosen_by;  // how: "knee", "weights", "trial"
};

struct Selection {
  SelectRule rule = SelectRule::kBestValue;
  std::string chosen_by;  // SelectionOptions::chosen_by when the trial was given

  const TrialRecord* selected = nullptr;
  int series_trials = 0;  // trials with a validation series; 0: nothing below is known
  int common_dates = 0;
  bool dates_differ = false;

  // The rule is robust but no trial has fold metrics: it equals the best
  // value, which the output says rather than pretend otherwise.
  bool robust_without_folds = false;

  // The selected trial: RankIC from its final metrics (or the mean of its
  // series); net Sharpe always of its daily series, annualized, the one
  // definition the DSR deflates (a trainer's val_sharpe_net may average
  // folds instead), else its final metric; *_sharpe_source says which.
  std::optional<double> val_rank_ic, test_rank_ic, val_sharpe_net,
      test_sharpe_net;  // Sharpe annualized
  std::string val_sharpe_source, test_sharpe_source;

  // Deflated Sharpe Ratio of the selected trial's validation returns.
  bool has_dsr = false;
  int n_trials = 0;  // every trial of the study, whatever its state
  double mean_correlation = 0;  // mean pairwise correlation of the trials' returns (NaN: unknown)
  double n_effective = 0;  // N_eff = rho + (1 - rho) N, in [1, N]
  double sharpe_variance = 0;  // V: variance of the per-day Sharpe ratio across trials
  int without_sharpe = 0;  // trials with series left out of V (constant returns)
  double skew = 0, kurtosis = 0;
  int t = 0;  // days in the selected trial's series
  double sharpe = 0;  // per day
  double benchmark = 0;  // expected max Sharpe, per day
  double dsr = 0;

  // Probability of Backtest Overfitting by CSCV over the common dates.
  std::optional<stats::Pbo> pbo;
  std::string pbo_note;  // why there is none
  std::string pbo_series;  // the daily series ranked: "rank_ic" or "returns"
  std::string pbo_score;  // "mean" or "Sharpe ratio", with "robust: ... " for the robust rule
  std::string pbo_series_note;  // why not the objective's own series; "" when it is

  // Validation to test carry-over across COMPLETE trials.
  std::string test_metric;  // test_X for objective val_X; "" if none
  int carry_trials = 0;
  double carry_spearman = 0;  // NaN when unknown
  std::optional<double> selected_test, median_test;
};

Selection compute_selection(const StudyView& view, const SelectionOptions& options);

// A few lines for people (`hpo best`); one line when no trial has series.
std::string selection_text(const StudyView& view, const Selection& s);

// The same as an object for scripts (`hpo status --json`'s "selection").
nlohmann::ordered_json selection_json(const StudyView& view, const Selection& s);

// The PBO logits' histogram: bins of width 1 over [-5, 5); values outside
// count in the end bins.
std::vector<int> logit_histogram(const stats::Pbo& pbo);
constexpr double kLogitLo = -5, kLogitHi = 5;

}  // namespace hpo

#endif  // HPO_REPORT_SELECTION_H_
