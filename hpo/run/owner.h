// Which process owns a RUNNING trial, and whether that process is still
// alive. A trial whose owner died (kill -9, a crash, a power cut) is an
// orphan that a later `hpo run` takes over and runs again.
//
// A host name tells no machine apart: containers with the host's network
// (Docker --net=host, Kubernetes hostNetwork) and cloned machines share one,
// and a pid means something only in its PID namespace. So an owner also
// names its boot (the kernel's boot id) and PID namespace, and a random id
// of its own, which tells it from every other process, also one with the
// same host, pid and start time in another namespace.
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
  std::string boot_id;  // /proc/sys/kernel/random/boot_id
  std::string pid_ns;  // the PID namespace's inode, as /proc/self/ns/pid names it
  std::string worker;  // random, one per hpo process; empty in a trainer's record

  nlohmann::json to_json() const;  // empty strings left out
  static Owner from_json(const nlohmann::json& j);  // missing fields stay empty/0
};

// The calling process (the same value all through its life).
const Owner& current_owner();

// The start time of `pid`, or -1 if no such process exists.
int64_t process_start_ticks(int64_t pid);

// Whether `owner`'s pid means a process here: it names this process's host
// name, boot and PID namespace (tests give hosts of one machine names of
// their own). False for records without them (older hpo, Optuna).
bool in_this_pid_namespace(const Owner& owner);

// True only when the owner is certainly dead: its pid is in this PID
// namespace of this boot, and it is gone or now belongs to a younger
// process. Anywhere else an owner is never judged dead here (that needs
// heartbeats).
bool owner_is_dead(const Owner& owner);

}  // namespace hpo

#endif  // HPO_RUN_OWNER_H_
