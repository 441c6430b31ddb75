// Which trial a sweep recommends: its best validation value (the default),
// or the "robust" rule, which discounts a trial whose folds disagree.
#ifndef HPO_REPORT_ROBUST_SELECT_H_
#define HPO_REPORT_ROBUST_SELECT_H_

#include <optional>
#include <string>

#include "hpo/report/study_view.h"

namespace hpo {

enum class SelectRule { kBestValue, kRobust };

// "best" or "robust"; nullopt for anything else.
std::optional<SelectRule> parse_select_rule(const std::string& name);
std::string to_string(SelectRule rule);

// The robust score of a COMPLETE trial: over its K folds' objectives (user
// attrs fold_<k>_<metric>, k = 0, 1, ... while present), mean - std / sqrt(K)
// when maximizing (mean + std / sqrt(K) when minimizing), std the sample
// standard deviation (0 for K = 1): the mean less one standard error, so a
// trial must be good on every fold, not lucky on one. A trial without fold
// attrs scores its objective (std 0). Nullopt for a trial with no value.
std::optional<double> robust_score(const StudyView& view, const TrialRecord& trial);

// Whether any trial has fold metrics fold_<k>_<metric>: without them the
// robust rule is the best value, which callers must say.
bool any_fold_metrics(const StudyView& view);

// COMPLETE trials, best first by the rule (ties: lower number first); at
// most `k` of them; with constraints, the feasible ones (best_trials).
std::vector<const TrialRecord*> ranked_trials(const StudyView& view, SelectRule rule, size_t k);

// The COMPLETE trial the rule picks; null if none.
const TrialRecord* select_trial(const StudyView& view, SelectRule rule);

}  // namespace hpo

#endif  // HPO_REPORT_ROBUST_SELECT_H_
