#include "hpo/report/host_summary.h"

#include "hpo/run/owner.h"

namespace hpo {

std::string trial_host(const TrialRecord& trial) {
  const auto owner = trial.system_attrs.find(kOwnerAttr);
  return owner == trial.system_attrs.end() ? "" : Owner::from_json(owner->second).host;
}

std::string trial_slot(const TrialRecord& trial) {
  const auto slot = trial.system_attrs.find(kSlotAttr);
  return slot != trial.system_attrs.end() && slot->second.is_string()
             ? slot->second.get<std::string>()
             : "";
}

std::vector<HostSummary> host_summaries(const StudyView& view) {
  std::map<std::string, HostSummary> by_host;
  for (const auto& t : view.trials) {
    const std::string host = trial_host(t);
    HostSummary& s = by_host[host];
    s.host = host;
    ++s.counts[t.state];
    const double seconds = trial_seconds(t);
    if (t.state != TrialState::kRunning && seconds >= 0) {
      // A running mean: no sum to overflow precision over long studies.
      ++s.timed;
      s.mean_seconds += (seconds - s.mean_seconds) / s.timed;
    }
  }
  std::vector<HostSummary> summaries;
  for (auto& [host, s] : by_host) summaries.push_back(std::move(s));
  return summaries;
}

}  // namespace hpo
