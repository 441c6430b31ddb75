// What the kernel says about one process in /proc/PID/stat: enough to tell
// a process from a later one with the same pid, and to find the members of
// a process group.
#ifndef HPO_LAUNCH_PROC_STAT_H_
#define HPO_LAUNCH_PROC_STAT_H_

#include <cstdint>
#include <optional>

namespace hpo {

struct ProcStat {
  char state = '?';  // 'R', 'S', ...; 'Z' for a zombie, which holds nothing but its pid
  int64_t pgid = 0;
  // Clock ticks since boot (field 22): with the pid it identifies a process
  // even after the pid is reused.
  int64_t start_ticks = 0;
};

// The process's stat, or nothing if there is no such process.
std::optional<ProcStat> read_proc_stat(int64_t pid);

}  // namespace hpo

#endif  // HPO_LAUNCH_PROC_STAT_H_
