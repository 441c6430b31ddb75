// Everything about one trial, for `hpo status --trial N`: where people look
// when a trial failed, without opening the database or the report.
#ifndef HPO_REPORT_TRIAL_DETAIL_H_
#define HPO_REPORT_TRIAL_DETAIL_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hpo/report/study_view.h"

namespace hpo {

// The trial numbered `number`, or nothing.
const TrialRecord* find_trial(const StudyView& view, int number);

// State, value, host and slot, params, the config it ran with, metrics,
// intermediate values, exit and reason, the stderr tail, and the trial's
// files that exist (config.json, report.jsonl, stdout.log, stderr.log).
std::string trial_detail(const StudyView& view, const TrialRecord& trial);

// trial_json() plus "config", "exit", "files" (the same, for scripts).
nlohmann::ordered_json trial_detail_json(const TrialRecord& trial);

}  // namespace hpo

#endif  // HPO_REPORT_TRIAL_DETAIL_H_
