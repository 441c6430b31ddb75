// The best trials' configs as files the trainer runs as they are: the
// sampled values plus the fixed ones, exactly what the trial's trainer read.
#ifndef HPO_REPORT_CONFIG_EXPORT_H_
#define HPO_REPORT_CONFIG_EXPORT_H_

#include <nlohmann/json.hpp>
#include <string>

#include "hpo/report/study_view.h"

namespace hpo {

// The config a trial ran with (stored with the trial when it started).
// Throws StorageError if the trial has none (e.g. created by Optuna).
nlohmann::json trial_run_config(const TrialRecord& trial);

// YAML with a comment header naming the study, trial and objective, then
// `notes` (lines, each made a comment).
std::string config_yaml(const StudyView& view, const TrialRecord& trial,
                        const std::string& notes = "");
std::string config_json(const TrialRecord& trial);

}  // namespace hpo

#endif  // HPO_REPORT_CONFIG_EXPORT_H_
