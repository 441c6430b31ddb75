#include "hpo/launch/process_group.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "hpo/launch/proc_stat.h"

namespace hpo {

namespace {

using Clock = std::chrono::steady_clock;

// SIGKILL ends a process at once unless it is inside a system call that
// cannot be interrupted (a hung driver, a dead NFS server); wait this long.
constexpr std::chrono::seconds kKillPatience(10);

bool group_empty(int64_t pgid) {
  // No member at all, zombies included: skips the scan of /proc.
  if (::kill(static_cast<pid_t>(-pgid), 0) != 0 && errno == ESRCH) return true;
  return live_group_members(pgid).empty();
}

// Waits until the group has no live member, up to `limit`.
bool wait_empty(int64_t pgid, Clock::duration limit) {
  const auto deadline = Clock::now() + limit;
  auto nap = std::chrono::milliseconds(1);
  while (!group_empty(pgid)) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace

std::vector<GroupMember> live_group_members(int64_t pgid) {
  std::vector<GroupMember> members;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    char* rest = nullptr;
    const long long pid = std::strtoll(name.c_str(), &rest, 10);
    if (name.empty() || *rest != '\0') continue;  // not a process
    const auto stat = read_proc_stat(pid);  // nothing if it just ended
    if (stat && stat->pgid == pgid && stat->state != 'Z' && stat->state != 'X') {
      members.push_back({pid, stat->start_ticks});
    }
  }
  return members;
}

bool end_process_group(int64_t pgid, std::chrono::duration<double> grace) {
  if (pgid <= 1) return false;  // kill(-1) or kill(0) would reach far more than a group
  const auto signal = [pgid](int sig) {
    return ::kill(static_cast<pid_t>(-pgid), sig) == 0 || errno == ESRCH;
  };
  if (!signal(SIGTERM)) return false;  // another user's
  if (wait_empty(pgid, std::chrono::duration_cast<Clock::duration>(grace))) return true;
  signal(SIGKILL);
  return wait_empty(pgid, kKillPatience);
}

}  // namespace hpo
