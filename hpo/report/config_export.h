// The best trials' configs as files the trainer runs as they are: the
// sampled values plus the fixed ones, exactly what the trial's trainer read.
#ifndef HPO_REPORT_CONFIG_EXPORT_H_
#define HPO_REPORT_CONFIG_EXPORT_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hpo/config/study_config.h"
#include "hpo/report/study_view.h"

namespace hpo {

// The config a trial ran with (stored with the trial when it started).
// Throws StorageError if the trial has none (e.g. created by Optuna).
nlohmann::json trial_run_config(const TrialRecord& trial);

// The shell line that runs the study's trainer on an exported config at
// `file`, as hpo ran it: the env settings the trial ran with (its study's
// `env:` as fitted to its slot, and the protocol's variables that describe
// the trial, such as HPO_TRIAL_NUMBER, but not its database id), the
// protocol's HPO_CONFIG, HPO_TRIAL_DIR and HPO_REPORT_FILE (the trial
// directory is "DIR"), then the
// study file's trainer command with `file` for {config} when `study` is
// given, else the argv the trial ran with. Empty when neither is known (a
// trial Optuna made).
std::string trainer_command_line(const StudyConfig* study, const TrialRecord& trial,
                                 const std::string& file);

// Whether the trainer that trainer_command_line() runs reads a YAML config:
// hpo-trainer does, and the protocol gives any other trainer JSON.
bool trainer_reads_yaml(const StudyConfig* study, const TrialRecord& trial);

// For a YAML config of a trainer that reads only JSON (the protocol's
// format): the `hpo export` that writes the JSON config to run, and the
// line that runs it, as a sentence; nullopt when the YAML runs as it is.
// `study_named` and `storage` (empty: none) are the flags that find the
// study: a study file's absolute path, so that it runs from anywhere.
std::optional<std::string> json_export_hint(const StudyConfig* study,
                                            const std::string& study_named,
                                            const std::string& storage, const TrialRecord& trial);

// YAML with a comment header naming the study, trial and objective, how to
// run it (`run_line`, if any), then `notes` (lines, each made a comment).
std::string config_yaml(const StudyView& view, const TrialRecord& trial,
                        const std::string& notes = "", const std::string& run_line = "");
std::string config_json(const TrialRecord& trial);

}  // namespace hpo

#endif  // HPO_REPORT_CONFIG_EXPORT_H_
