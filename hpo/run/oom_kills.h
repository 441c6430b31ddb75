// The kernel's count of out-of-memory kills, to tell its SIGKILL of a
// trainer from anyone else's (an operator's `kill -9` of a hung trainer).
#ifndef HPO_RUN_OOM_KILLS_H_
#define HPO_RUN_OOM_KILLS_H_

#include <cstdint>
#include <optional>
#include <string>

namespace hpo {

// The "oom_kill N" line of /proc/vmstat's text; nullopt without one.
std::optional<uint64_t> parse_oom_kills(const std::string& vmstat);

// The machine's count now (the kernel's and every memory cgroup's OOM kills);
// nullopt where /proc/vmstat cannot be read or has no such line.
std::optional<uint64_t> oom_kill_count();

// Whether `comm` (a process's name, /proc/PID/comm) is a user-space OOM
// killer's: systemd-oomd, earlyoom, oomd, nohang. Their SIGKILLs leave the
// kernel's count alone.
bool is_user_space_oom_killer(const std::string& comm);

// Whether one runs on this machine (its PID namespace): then a SIGKILL the
// kernel's count does not explain may still be for lack of memory.
bool user_space_oom_killer_running();

}  // namespace hpo

#endif  // HPO_RUN_OOM_KILLS_H_
