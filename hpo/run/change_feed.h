// Follows a study's trials by reading only what may have changed since the
// last look: the trials created since (ids grow with creation) and those
// that were unfinished then. Finished trials never change, so a long study
// is not read whole again for every trial or every reported epoch.
#ifndef HPO_RUN_CHANGE_FEED_H_
#define HPO_RUN_CHANGE_FEED_H_

#include <cstdint>
#include <set>
#include <vector>

#include "hpo/storage/storage.h"

namespace hpo {

class ChangeFeed {
 public:
  explicit ChangeFeed(int64_t study_id) : study_id_(study_id) {}

  // The trials that are new or may have changed since the last call (all of
  // them on the first), in the order the storage returns them.
  std::vector<TrialRecord> next(Storage& storage);

 private:
  int64_t study_id_;
  int64_t last_id_ = 0;
  std::set<int64_t> unfinished_;
};

}  // namespace hpo

#endif  // HPO_RUN_CHANGE_FEED_H_
