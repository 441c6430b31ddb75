#include "hpo/gpu/cpu_cores.h"

#include <doctest/doctest.h>

#include "hpo/config/config_error.h"
#include "tests/unit/temp_dir.h"

namespace hpo {
namespace {

TEST_CASE("cgroup v2 cpu.max: a quota over a period, or max for none") {
  CHECK(parse_cpu_max("150000 100000\n", "cpu.max") == 1.5);
  CHECK(parse_cpu_max("200000 100000", "cpu.max") == 2.0);
  CHECK_FALSE(parse_cpu_max("max 100000\n", "cpu.max"));
  CHECK_THROWS_WITH_AS(
      parse_cpu_max("lots\n", "/sys/fs/cgroup/cpu.max"),
      "/sys/fs/cgroup/cpu.max: expected 'QUOTA PERIOD' or 'max PERIOD' (microseconds), got 'lots'",
      ConfigError);
  CHECK_THROWS_AS(parse_cpu_max("100000 0", "cpu.max"), ConfigError);
  CHECK_THROWS_AS(parse_cpu_max("", "cpu.max"), ConfigError);
}

TEST_CASE("cgroup v1: cfs_quota_us over cfs_period_us, -1 for none") {
  CHECK(parse_cfs_quota("50000\n", "100000\n", "/cg/cpu") == 0.5);
  CHECK(parse_cfs_quota("400000", "100000", "/cg/cpu") == 4.0);
  CHECK_FALSE(parse_cfs_quota("-1\n", "100000\n", "/cg/cpu"));
  CHECK_THROWS_WITH_AS(
      parse_cfs_quota("x", "100000", "/cg/cpu"),
      "/cg/cpu/cpu.cfs_quota_us: expected a quota in microseconds, or -1 for none, got 'x'",
      ConfigError);
  CHECK_THROWS_WITH_AS(parse_cfs_quota("50000", "0", "/cg/cpu"),
                       "/cg/cpu/cpu.cfs_period_us: expected a period in microseconds, got '0'",
                       ConfigError);
}

TEST_CASE("the tightest quota of this process's cgroup and its ancestors counts") {
  TempDir root;
  // v2: the process sits in /app/job; its parent allows 4 CPUs, it 1.5.
  root.write("cpu.max", "max 100000\n");
  root.write("app/cpu.max", "400000 100000\n");
  const std::string job = root.write("app/job/cpu.max", "150000 100000\n");
  auto quota = read_cpu_quota(root.path(), "0::/app/job\n");
  REQUIRE(quota);
  CHECK(quota->cpus == 1.5);
  CHECK(quota->source == job);
  quota = read_cpu_quota(root.path(), "0::/app\n");  // a sibling's limit does not count
  REQUIRE(quota);
  CHECK(quota->cpus == 4);
  CHECK_FALSE(read_cpu_quota(root.path(), "0::/\n"));  // "max" at the top: no limit
}

TEST_CASE("cgroup v1 quotas are read under the cpu controller's mount") {
  TempDir root;
  root.write("cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  root.write("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  root.write("cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "250000\n");
  root.write("cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  const std::string self = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n";
  const auto quota = read_cpu_quota(root.path(), self);
  REQUIRE(quota);
  CHECK(quota->cpus == 2.5);
  CHECK(quota->source == root.path("cpu,cpuacct/docker/abc/cpu.cfs_quota_us"));
  CHECK_FALSE(read_cpu_quota(root.path(), "4:cpu,cpuacct:/\n"));
  CHECK_FALSE(read_cpu_quota(root.path("nothing here"), self));  // no cgroup files: no limit
}

TEST_CASE("cores = min(affinity, ceil(quota)), at least 1") {
  CHECK(cpu_cores(16, std::nullopt).cores == 16);
  CHECK(cpu_cores(16, CpuQuota{1.5, "cpu.max"}).cores == 2);
  CHECK(cpu_cores(16, CpuQuota{4.0, "cpu.max"}).cores == 4);
  CHECK(cpu_cores(2, CpuQuota{8.0, "cpu.max"}).cores == 2);
  CHECK(cpu_cores(16, CpuQuota{0.2, "cpu.max"}).cores == 1);
  CHECK(cpu_cores(16, CpuQuota{1.5, "/sys/fs/cgroup/cpu.max"}).explain() ==
        "2 (affinity mask: 16 CPU(s); cgroup quota: 1.5 CPU(s) in /sys/fs/cgroup/cpu.max)");
  CHECK(cpu_cores(8, std::nullopt).explain() == "8 (affinity mask: 8 CPU(s))");
}

}  // namespace
}  // namespace hpo
