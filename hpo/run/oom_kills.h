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

}  // namespace hpo

#endif  // HPO_RUN_OOM_KILLS_H_
