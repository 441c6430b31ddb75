// Process groups outside a Process: a trainer and everything it starts share
// one (see process.h), and a group can outlive the hpo that started it. A
// resumed trial ends what is left of its earlier trainer's group with these.
#ifndef HPO_LAUNCH_PROCESS_GROUP_H_
#define HPO_LAUNCH_PROCESS_GROUP_H_

#include <chrono>
#include <cstdint>
#include <vector>

namespace hpo {

struct GroupMember {
  int64_t pid = 0;
  int64_t start_ticks = 0;  // see ProcStat
};

// The live members of process group `pgid`. Zombies are left out: they hold
// no memory, GPU or files, only a pid their parent has yet to reap.
std::vector<GroupMember> live_group_members(int64_t pgid);

// Ends process group `pgid` as hpo ends a trainer: SIGTERM, up to `grace` for
// its members to exit, then SIGKILL. Returns true once no live member is
// left; false if some are not ours to signal, or outlast SIGKILL by seconds
// (stuck in the kernel).
bool end_process_group(int64_t pgid, std::chrono::duration<double> grace);

}  // namespace hpo

#endif  // HPO_LAUNCH_PROCESS_GROUP_H_
