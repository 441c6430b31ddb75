// Which trainer process a trial ran last, stored with the trial as
// "hpo:trainer" when the trainer starts. When the hpo that ran it dies, the
// trainer dies with it, but what the trainer started lives on in its process
// group; before the trial runs again, the record says what to end.
#ifndef HPO_RUN_TRAINER_RECORD_H_
#define HPO_RUN_TRAINER_RECORD_H_

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "hpo/launch/process.h"
#include "hpo/run/owner.h"

namespace hpo {

inline constexpr const char* kTrainerAttr = "hpo:trainer";

struct TrainerRecord {
  Owner process;  // the trainer's host, pid and start time
  int64_t pgid = 0;

  // {"host", "pid", "pgid", "start_ticks"}
  nlohmann::json to_json() const;
  static TrainerRecord from_json(const nlohmann::json& j);  // missing fields stay empty/0
};

// The record of a trainer that has just started on this host.
TrainerRecord record_of(const Process& trainer);

// Ends what is left of the recorded trainer's process group, as a timeout
// would (SIGTERM, `grace`, SIGKILL), and waits until it is gone. Only a group
// on this host that is still the trainer's is touched: none once the
// trainer's pid belongs to a younger process (the group, named by that pid,
// ended before the pid was free), and none with a member older than the
// trainer. Returns how many live processes it found to end.
size_t end_leftover_trainer(const TrainerRecord& record, std::chrono::duration<double> grace);

}  // namespace hpo

#endif  // HPO_RUN_TRAINER_RECORD_H_
