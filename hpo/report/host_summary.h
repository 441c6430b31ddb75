// Where a study's trials ran: each trial's host and slot, and per host how
// many trials are in each state and how long they took. Workers on several
// hosts share a study; this is how `hpo status` tells them apart.
#ifndef HPO_REPORT_HOST_SUMMARY_H_
#define HPO_REPORT_HOST_SUMMARY_H_

#include <map>
#include <string>
#include <vector>

#include "hpo/report/study_view.h"

namespace hpo {

// The host of the hpo that runs (or last ran) the trial, "" when it has no
// hpo owner (a trial Optuna made, say).
std::string trial_host(const TrialRecord& trial);

// The slot it ran in on that host ("gpu1.w0", "cpu.w3"), or "".
std::string trial_slot(const TrialRecord& trial);

struct HostSummary {
  std::string host;  // "" for trials without an hpo owner
  std::map<TrialState, int> counts;  // trials per state
  int timed = 0;  // finished trials with a known duration
  double mean_seconds = 0;  // their mean duration; 0 when none
};

// One entry per host, ordered by host name.
std::vector<HostSummary> host_summaries(const StudyView& view);

}  // namespace hpo

#endif  // HPO_REPORT_HOST_SUMMARY_H_
