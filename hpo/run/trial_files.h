// The files of a trial directory, by name: what the run writes there and
// what export, the trainer check and calibration read back.
#ifndef HPO_RUN_TRIAL_FILES_H_
#define HPO_RUN_TRIAL_FILES_H_

namespace hpo {

inline constexpr const char* kConfigFile = "config.json";
inline constexpr const char* kReportFile = "report.jsonl";
inline constexpr const char* kStdoutFile = "stdout.log";
inline constexpr const char* kStderrFile = "stderr.log";

}  // namespace hpo

#endif  // HPO_RUN_TRIAL_FILES_H_
