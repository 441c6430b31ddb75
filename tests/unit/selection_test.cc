#include "hpo/report/selection.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "hpo/report/robust_select.h"
#include "hpo/report/sweep_series.h"

namespace hpo {
namespace {

TrialRecord trial(int number, double value, std::vector<std::string> dates,
                  std::vector<double> returns) {
  TrialRecord t;
  t.number = number;
  t.state = TrialState::kComplete;
  t.value = value;
  if (!dates.empty()) {
    nlohmann::json rank_ic = nlohmann::json::array();
    for (size_t i = 0; i < dates.size(); ++i)
      rank_ic.push_back(nullptr);  // NaN RankICs are stored as null
    t.system_attrs["hpo:series:valid"] = {
        {"dates", dates}, {"returns", returns}, {"rank_ic", rank_ic}};
  }
  return t;
}

StudyView view_of(std::vector<TrialRecord> trials) {
  StudyView view;
  view.study.direction = Direction::kMaximize;
  view.metric = "val_rank_ic";
  view.trials = std::move(trials);
  return view;
}

TEST_CASE("selection: series on different dates are aligned on the common ones, and it says so") {
  const StudyView view = view_of({
      trial(0, 0.1, {"2021-01-04", "2021-01-05", "2021-01-06", "2021-01-07"}, {1, 2, 3, 4}),
      trial(1, 0.2, {"2021-01-05", "2021-01-06", "2021-01-07", "2021-01-08"}, {20, 30, 40, 50}),
      trial(2, 0.3, {}, {}),  // no series: takes no part, still counts toward N
  });
  const AlignedSeries a = align_series(view, "valid");
  CHECK(a.trials.size() == 2);
  CHECK(a.dates == std::vector<std::string>{"2021-01-05", "2021-01-06", "2021-01-07"});
  CHECK(a.returns == std::vector<std::vector<double>>{{2, 3, 4}, {20, 30, 40}});
  CHECK(a.dates_differ);
  CHECK(std::isnan(trial_series(view.trials[0], "valid")->rank_ic[0]));

  const Selection s = compute_selection(view, {});
  CHECK(s.selected->number == 2);
  CHECK(s.series_trials == 2);
  CHECK(s.common_dates == 3);
  CHECK(s.n_trials == 3);
  CHECK_FALSE(s.has_dsr);  // the selected trial has no series
  CHECK(s.pbo_note.find("at least 32 common dates") != std::string::npos);
  const std::string text = selection_text(view, s);
  CHECK(text.find("their dates differ: aligned on the dates all of them have") !=
        std::string::npos);
  CHECK(text.find("DSR: n/a") != std::string::npos);
}

TEST_CASE("selection: without series, no text and an unavailable object") {
  // A trainer that is not financial: hpo best and export say nothing of it.
  const StudyView view = view_of({trial(0, 0.1, {}, {})});
  const Selection s = compute_selection(view, {});
  CHECK(selection_text(view, s).empty());
  CHECK(selection_json(view, s)["available"] == false);
}

TEST_CASE("robust rule: mean over folds less one standard error; no folds: the objective") {
  StudyView view =
      view_of({trial(0, 0.30, {}, {}), trial(1, 0.25, {}, {}), trial(2, 0.28, {}, {})});
  // Trial 0 is the best by value but its folds disagree: mean 0.3, sample
  // std 0.2, K = 4: 0.3 - 0.2 / 2 = 0.2. Trial 1: folds 0.25 each, 0.25.
  // Trial 2 has no folds: its value, 0.28.
  for (int k = 0; k < 4; ++k) {
    view.trials[0].user_attrs["fold_" + std::to_string(k) + "_val_rank_ic"] =
        k < 2 ? 0.3 - 0.2 * std::sqrt(0.75) : 0.3 + 0.2 * std::sqrt(0.75);
    view.trials[1].user_attrs["fold_" + std::to_string(k) + "_val_rank_ic"] = 0.25;
  }
  CHECK(*robust_score(view, view.trials[0]) == doctest::Approx(0.2));
  CHECK(*robust_score(view, view.trials[1]) == doctest::Approx(0.25));
  CHECK(*robust_score(view, view.trials[2]) == doctest::Approx(0.28));
  CHECK(select_trial(view, SelectRule::kBestValue)->number == 0);
  CHECK(select_trial(view, SelectRule::kRobust)->number == 2);
  const auto ranked = ranked_trials(view, SelectRule::kRobust, 3);
  CHECK(ranked.size() == 3);
  CHECK(ranked[1]->number == 1);
  // Minimizing adds the penalty.
  view.study.direction = Direction::kMinimize;
  CHECK(*robust_score(view, view.trials[0]) == doctest::Approx(0.4));
}

}  // namespace
}  // namespace hpo
