#include "hpo/run/change_feed.h"

namespace hpo {

std::vector<TrialRecord> ChangeFeed::next(Storage& storage) {
  const std::vector<int64_t> unfinished(unfinished_.begin(), unfinished_.end());
  std::vector<TrialRecord> changed = storage.trials_changed(study_id_, last_id_, unfinished);
  for (const auto& t : changed) {
    if (t.id > last_id_) last_id_ = t.id;
    if (is_finished(t.state))
      unfinished_.erase(t.id);
    else
      unfinished_.insert(t.id);
  }
  return changed;
}

}  // namespace hpo
