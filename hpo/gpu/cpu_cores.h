// The CPU cores trials may use: this process's affinity mask, capped by a
// cgroup CPU quota. A container limited to 2 CPUs still sees every core of
// the host in its mask, and splitting 64 "cores" between trials there
// oversubscribes the 2 it may run on.
#ifndef HPO_GPU_CPU_CORES_H_
#define HPO_GPU_CPU_CORES_H_

#include <optional>
#include <string>

namespace hpo {

struct CpuQuota {
  double cpus = 0;  // quota / period: 1.5 means one and a half CPUs' time
  std::string source;  // the file that set it
};

// cgroup v2 cpu.max: "QUOTA PERIOD" in microseconds, or "max PERIOD" for no
// limit (nullopt). `file` names the file in the ConfigError a malformed one
// throws.
std::optional<double> parse_cpu_max(const std::string& text, const std::string& file);

// cgroup v1: the texts of cpu.cfs_quota_us (-1 for no limit: nullopt) and
// cpu.cfs_period_us in directory `dir`.
std::optional<double> parse_cfs_quota(const std::string& quota, const std::string& period,
                                      const std::string& dir);

// The tightest quota on this process's cgroup and its ancestors. `root` is
// where cgroups are mounted (/sys/fs/cgroup); `self` is /proc/self/cgroup's
// text, which says where in the tree this process is. cgroup v2 has cpu.max
// in each directory; v1 has cpu.cfs_quota_us and cpu.cfs_period_us under
// ROOT/cpu (or cpu,cpuacct). nullopt when no level sets one.
std::optional<CpuQuota> read_cpu_quota(const std::string& root, const std::string& self);

struct CpuCores {
  int affinity = 1;  // CPUs in this process's affinity mask
  std::optional<CpuQuota> quota;
  int cores = 1;  // min(affinity, ceil(quota)), at least 1

  // "2 (affinity mask: 16 CPU(s); cgroup quota: 1.5 CPU(s) in /sys/fs/cgroup/cpu.max)"
  std::string explain() const;
};

// The arithmetic: min(affinity, ceil(quota)), never below 1.
CpuCores cpu_cores(int affinity, const std::optional<CpuQuota>& quota);

// This process's cores: sched_getaffinity and the quota under
// $HPO_CGROUP_ROOT (for tests), else /sys/fs/cgroup. Throws ConfigError for
// a cgroup file it cannot read as one.
CpuCores detect_cpu_cores();

}  // namespace hpo

#endif  // HPO_GPU_CPU_CORES_H_
