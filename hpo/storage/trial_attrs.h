// The keys of the system attributes hpo stores on a trial (Optuna's
// trial_system_attrs), which the run writes and the reports, export and a
// resumed run read. One spelling each, so that a writer and its readers
// cannot drift apart. docs/storage.md lists them for users.
#ifndef HPO_STORAGE_TRIAL_ATTRS_H_
#define HPO_STORAGE_TRIAL_ATTRS_H_

namespace hpo {

// Written when a trial starts: what it was launched with.
inline constexpr const char* kArgvAttr = "hpo:argv";
inline constexpr const char* kEnvAttr = "hpo:env";
inline constexpr const char* kTrialDirAttr = "hpo:trial_dir";
inline constexpr const char* kTrialConfigAttr = "hpo:config";  // the values that ran

// Written when it ends: how it went.
inline constexpr const char* kCurveAttr = "hpo:curve";  // its per-step metrics
inline constexpr const char* kDurationAttr = "hpo:duration_s";
inline constexpr const char* kExitAttr = "hpo:exit";
inline constexpr const char* kGpuUseAttr = "hpo:gpu";  // mean use of its GPU
inline constexpr const char* kInterruptedAttr = "hpo:interrupted";
inline constexpr const char* kInvalidReportLinesAttr = "hpo:invalid_report_lines";
inline constexpr const char* kFirstInvalidReportLineAttr = "hpo:first_invalid_report_line";
inline constexpr const char* kPrunedAtStepAttr = "hpo:pruned_at_step";
inline constexpr const char* kOomRetriesAttr = "hpo:oom_retries";

// A failed trial's: why, what kind of failure ("oom", "error", ...), and
// the end of its stderr.
inline constexpr const char* kFailReasonAttr = "hpo:fail_reason";
inline constexpr const char* kFailKindAttr = "hpo:fail_kind";
inline constexpr const char* kStderrTailAttr = "hpo:stderr_tail";

}  // namespace hpo

#endif  // HPO_STORAGE_TRIAL_ATTRS_H_
