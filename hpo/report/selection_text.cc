// selection_text() and selection_json(): the Selection for people and for
// scripts.
#include <cmath>
#include <cstdio>

#include "hpo/report/selection.h"

namespace hpo {

namespace {

constexpr const char* kNeffMethod =
    "mean pairwise correlation: N_eff = rho + (1 - rho) N, clamped to [1, N]";

std::string num(double v, const char* format = "%.4g") {
  if (std::isnan(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string num(const std::optional<double>& v) { return v ? num(*v) : "n/a"; }

nlohmann::ordered_json json_number(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json json_number(const std::optional<double>& v) {
  return v ? json_number(*v) : nlohmann::ordered_json(nullptr);
}

std::string scope_line(const Selection& s) {
  const std::string rule = s.chosen_by.empty() ? to_string(s.rule) : s.chosen_by;
  std::string text = "selection (" + rule + "): trial " +
                     (s.selected ? std::to_string(s.selected->number) : std::string("none")) +
                     "; " + std::to_string(s.series_trials) + " trial(s) with daily series on " +
                     std::to_string(s.common_dates) + " common date(s)";
  if (s.dates_differ) text += " (their dates differ: aligned on the dates all of them have)";
  return text + "\n";
}

std::string robust_line(const Selection& s) {
  return s.robust_without_folds ? "  robust: no trial has fold metrics (fold_<k>_<objective>), so "
                                  "the robust rule picked the best value\n"
                                : "";
}

std::string without_sharpe_text(const Selection& s) {
  return s.without_sharpe ? "; " + std::to_string(s.without_sharpe) +
                                " trial(s) with constant returns have no Sharpe ratio and are "
                                "left out of V"
                          : "";
}

std::string dsr_line(const Selection& s) {
  if (!s.has_dsr)
    return "  DSR: n/a (the selected trial has no validation series, or constant returns" +
           without_sharpe_text(s) + ")\n";
  return "  DSR " + num(s.dsr, "%.3f") + ": Sharpe " + num(s.sharpe) + "/day (" +
         num(s.sharpe * std::sqrt(kDaysPerYear), "%.2f") +
         " a year) over T = " + std::to_string(s.t) + " days, skew " + num(s.skew, "%.2f") +
         ", kurtosis " + num(s.kurtosis, "%.2f") + "; vs expected max " + num(s.benchmark) +
         "/day of N_eff = " + num(s.n_effective, "%.1f") + " of N = " + std::to_string(s.n_trials) +
         " trials (mean correlation " + num(s.mean_correlation, "%.2f") +
         "), V = " + num(s.sharpe_variance) + without_sharpe_text(s) + "\n";
}

std::string histogram_text(const stats::Pbo& pbo) {
  std::string text;
  for (int c : logit_histogram(pbo)) text += (text.empty() ? "" : " ") + std::to_string(c);
  return text;
}

std::string pbo_line(const Selection& s) {
  if (!s.pbo) return "  PBO: n/a (" + s.pbo_note + ")\n";
  return "  PBO " + num(s.pbo->pbo, "%.3f") + " over " + std::to_string(s.series_trials) +
         " survivors of " + std::to_string(s.n_trials) + " tried, in-sample winners by daily " +
         s.pbo_series + " (" + s.pbo_score +
         (s.pbo_series_note.empty() ? "" : "; " + s.pbo_series_note) +
         "), by CSCV over S = " + std::to_string(s.pbo->blocks) + " blocks, " +
         std::to_string(s.pbo->logits.size()) + " combinations; logits per unit bin from " +
         num(kLogitLo, "%g") + " to " + num(kLogitHi, "%g") + ": " + histogram_text(*s.pbo) + "\n";
}

std::string carry_line(const StudyView& view, const Selection& s) {
  if (s.test_metric.empty())
    return "  carry-over: n/a (the objective " + view.metric + " is not a val_ metric)\n";
  return "  carry-over: Spearman(" + view.metric + ", " + s.test_metric +
         ") = " + num(s.carry_spearman, "%.3f") + " over " + std::to_string(s.carry_trials) +
         " COMPLETE trials; selected " + s.test_metric + " " + num(s.selected_test) +
         " vs median trial " + num(s.median_test) + "\n";
}

// Which Sharpe ratio the headline shows: one definition, named.
std::string sharpe_label(const std::string& source) {
  if (source.empty()) return "";
  return source == "daily series" ? " (a year, of the daily series as DSR takes it)"
                                  : " (the trainer's " + source + ")";
}

}  // namespace

std::string selection_text(const StudyView& view, const Selection& s) {
  // Nothing to judge, and nothing said: most trainers are not financial and
  // report no daily series (status --json says "available": false).
  if (s.series_trials == 0) return "";
  return scope_line(s) + robust_line(s) + "  validation: rank_ic " + num(s.val_rank_ic) +
         ", net Sharpe " + num(s.val_sharpe_net) + sharpe_label(s.val_sharpe_source) +
         "\n  test:       rank_ic " + num(s.test_rank_ic) + ", net Sharpe " +
         num(s.test_sharpe_net) + sharpe_label(s.test_sharpe_source) + "\n" + dsr_line(s) +
         pbo_line(s) + carry_line(view, s);
}

nlohmann::ordered_json selection_json(const StudyView& view, const Selection& s) {
  nlohmann::ordered_json j;
  j["available"] = s.series_trials > 0;
  j["rule"] = !s.chosen_by.empty()            ? s.chosen_by
              : s.rule == SelectRule::kRobust ? "robust"
                                              : "best";
  j["trial"] =
      s.selected ? nlohmann::ordered_json(s.selected->number) : nlohmann::ordered_json(nullptr);
  if (s.series_trials == 0) {
    j["note"] = "no trial has daily series";
    return j;
  }
  j["series_trials"] = s.series_trials;
  j["common_dates"] = s.common_dates;
  j["dates_differ"] = s.dates_differ;
  if (s.robust_without_folds) j["robust_note"] = "no trial has fold metrics: the best value";
  j["valid"] = {{"rank_ic", json_number(s.val_rank_ic)},
                {"sharpe_net", json_number(s.val_sharpe_net)},
                {"sharpe_net_source", s.val_sharpe_source}};
  j["test"] = {{"rank_ic", json_number(s.test_rank_ic)},
               {"sharpe_net", json_number(s.test_sharpe_net)},
               {"sharpe_net_source", s.test_sharpe_source}};
  nlohmann::ordered_json dsr(nullptr);
  if (s.has_dsr) {
    dsr = {{"dsr", json_number(s.dsr)},
           {"sharpe_per_day", json_number(s.sharpe)},
           {"expected_max_sharpe_per_day", json_number(s.benchmark)},
           {"n_trials", s.n_trials},
           {"n_effective", json_number(s.n_effective)},
           {"n_effective_method", kNeffMethod},
           {"mean_correlation", json_number(s.mean_correlation)},
           {"sharpe_variance", json_number(s.sharpe_variance)},
           {"without_sharpe", s.without_sharpe},
           {"skew", json_number(s.skew)},
           {"kurtosis", json_number(s.kurtosis)},
           {"t", s.t}};
  }
  j["dsr"] = dsr;
  nlohmann::ordered_json pbo = {{"note", s.pbo_note}};
  if (s.pbo) {
    pbo = {{"pbo", s.pbo->pbo},
           {"blocks", s.pbo->blocks},
           {"combinations", s.pbo->logits.size()},
           {"series", s.pbo_series},
           {"score", s.pbo_score},
           {"series_note", s.pbo_series_note},
           {"trials_with_series", s.series_trials},
           {"trials_tried", s.n_trials},
           {"logit_histogram",
            {{"lo", kLogitLo}, {"hi", kLogitHi}, {"counts", logit_histogram(*s.pbo)}}}};
  }
  j["pbo"] = pbo;
  j["carry_over"] = {{"metric", view.metric},
                     {"test_metric", s.test_metric},
                     {"trials", s.carry_trials},
                     {"spearman", json_number(s.carry_spearman)},
                     {"selected_test", json_number(s.selected_test)},
                     {"median_test", json_number(s.median_test)}};
  return j;
}

}  // namespace hpo
