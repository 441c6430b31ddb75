// Which process owns a RUNNING trial, and whether that process is still
// alive. A trial whose owner died (kill -9, a crash, a power cut) is an
// orphan that a later `hpo run` takes over and runs again.
#ifndef HPO_RUN_OWNER_H_
#define HPO_RUN_OWNER_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace hpo {

// The trial's owner (an Owner as JSON): the hpo process that runs it, and
// so its host. Taken over with compare-and-set when that process died.
inline constexpr const char* kOwnerAttr = "hpo:owner";
// The name of the slot the trial last ran in on its owner's host ("gpu1.w0",
// "cpu.w3"; see Slot).
inline constexpr const char* kSlotAttr = "hpo:slot";

struct Owner {
  std::string host;
  int64_t pid = 0;
  // The process's start time in clock ticks since boot (/proc/PID/stat field
  // 22): with the pid it identifies a process even after the pid is reused.
  int64_t start_ticks = 0;

  nlohmann::json to_json() const;
  static Owner from_json(const nlohmann::json& j);  // missing fields stay empty/0
};

// The calling process.
Owner current_owner();

// The start time of `pid`, or -1 if no such process exists.
int64_t process_start_ticks(int64_t pid);

// True only when the owner is certainly dead: it ran on this host and its
// pid is gone or now belongs to a younger process. An owner on another host
// is never judged dead here (that needs heartbeats).
bool owner_is_dead(const Owner& owner);

}  // namespace hpo

#endif  // HPO_RUN_OWNER_H_
