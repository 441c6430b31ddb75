#include <doctest/doctest.h>

#include "hpo/gpu/command_output.h"
#include "hpo/gpu/gpu_detect.h"

namespace hpo {
namespace {

// Captured from `nvidia-smi --query-gpu=index,name,memory.total,memory.used,
// utilization.gpu --format=csv,noheader,nounits` on a two-GPU H100 machine.
const char kTwoH100[] =
    "0, NVIDIA H100 80GB HBM3, 81559, 4, 0\n"
    "1, NVIDIA H100 80GB HBM3, 81559, 40213, 97\n";

std::vector<int> indices(const std::vector<GpuDevice>& devices) {
  std::vector<int> out;
  for (const GpuDevice& d : devices) out.push_back(d.index);
  return out;
}

TEST_CASE("nvidia-smi's query output parses into devices") {
  const std::vector<GpuDevice> d = parse_gpu_query(kTwoH100);
  REQUIRE(d.size() == 2);
  CHECK(d[0].index == 0);
  CHECK(d[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(d[0].memory_total_mib == 81559);
  CHECK(d[0].memory_used_mib == 4);
  CHECK(d[0].utilization_pct == 0);
  CHECK(d[1].memory_used_mib == 40213);
  CHECK(d[1].utilization_pct == 97);
  CHECK(d[1].memory_total_gib() == doctest::Approx(79.647).epsilon(0.001));
}

TEST_CASE("odd spacing, CRLF, blank lines and [N/A] readings are accepted") {
  const std::vector<GpuDevice> d =
      parse_gpu_query("\n  0 ,NVIDIA A100-SXM4-40GB,40960 ,  [N/A], [Not Supported]\r\n\n1,Tesla T4,15360,0,3");
  REQUIRE(d.size() == 2);
  CHECK(d[0].name == "NVIDIA A100-SXM4-40GB");
  CHECK(d[0].memory_total_mib == 40960);
  CHECK_FALSE(d[0].memory_used_mib);
  CHECK_FALSE(d[0].utilization_pct);
  CHECK(d[1].name == "Tesla T4");
  CHECK(d[1].utilization_pct == 3);
  CHECK(parse_gpu_query("").empty());
}

TEST_CASE("malformed nvidia-smi output is an error naming the line") {
  CHECK_THROWS_WITH_AS(parse_gpu_query("0, A, 1, 2, 3\n0, NVIDIA H100, 81559, 0\n"),
                       "nvidia-smi output line 2: expected 5 fields (index,name,memory.total,memory.used,"
                       "utilization.gpu): '0, NVIDIA H100, 81559, 0'",
                       GpuQueryError);
  CHECK_THROWS_WITH_AS(parse_gpu_query("x, H100, 81559, 0, 0"), doctest::Contains("bad GPU index"), GpuQueryError);
  CHECK_THROWS_WITH_AS(parse_gpu_query("0, H100, 80GB, 0, 0"), doctest::Contains("bad memory.total"), GpuQueryError);
  CHECK_THROWS_WITH_AS(parse_gpu_query("0, H100, 81559, 1.5, 0"), doctest::Contains("bad memory.used"),
                       GpuQueryError);
  CHECK_THROWS_WITH_AS(parse_gpu_query("NVIDIA-SMI has failed because it couldn't communicate with the driver."),
                       doctest::Contains("expected 5 fields"), GpuQueryError);
}

TEST_CASE("CUDA_VISIBLE_DEVICES narrows the devices as CUDA does") {
  const std::vector<GpuDevice> all = parse_gpu_query("0, G, 1, 0, 0\n1, G, 1, 0, 0\n2, G, 1, 0, 0\n");
  CHECK(indices(filter_visible(all, "2,0")) == std::vector<int>{2, 0});
  CHECK(indices(filter_visible(all, " 1 ")) == std::vector<int>{1});
  CHECK(indices(filter_visible(all, "0,7,1")) == std::vector<int>{0});  // stops at an unknown index
  CHECK(filter_visible(all, "").empty());
  CHECK(filter_visible(all, "-1").empty());
  CHECK(filter_visible(all, "GPU-8a3c1e2f").empty());
}

TEST_CASE("run_command captures output, exit codes and time-outs") {
  CommandOutput out = run_command({"/bin/echo", "hello"}, 10);
  CHECK(out.ok());
  CHECK(out.out == "hello\n");
  out = run_command({"/bin/sh", "-c", "echo broken >&2; exit 9"}, 10);
  CHECK_FALSE(out.ok());
  CHECK(out.exit_code == 9);
  CHECK(out.problem() == "exit code 9: broken");
  out = run_command({"/bin/sleep", "10"}, 0.2);
  CHECK(out.timed_out);
  CHECK_FALSE(out.ok());
  out = run_command({"/nonexistent/nvidia-smi"}, 10);
  CHECK_FALSE(out.started);
  CHECK_FALSE(out.problem().empty());
}

TEST_CASE("hpo can count its cores") { CHECK(available_cpu_cores() >= 1); }

}  // namespace
}  // namespace hpo
