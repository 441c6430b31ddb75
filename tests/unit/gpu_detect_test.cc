#include "hpo/gpu/gpu_detect.h"

#include <doctest/doctest.h>
#include <sched.h>

#include "hpo/gpu/command_output.h"

namespace hpo {
namespace {

// Captured from `nvidia-smi --query-gpu=index,name,memory.total,memory.used,
// utilization.gpu,uuid --format=csv,noheader,nounits` on a two-GPU H100
// machine.
const char kTwoH100[] =
    "0, NVIDIA H100 80GB HBM3, 81559, 4, 0, GPU-8f2c4b1a-5d3e-4c2b-9a1f-6e0d2c3b4a50\n"
    "1, NVIDIA H100 80GB HBM3, 81559, 40213, 97, GPU-3b7e9d20-1c4f-4a8e-b6d2-7f9a0e1c2d31\n";

// `nvidia-smi -L` with MIG enabled on GPU 0.
const char kMigList[] =
    "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-8f2c4b1a-5d3e-4c2b-9a1f-6e0d2c3b4a50)\n"
    "  MIG 1g.10gb     Device  0: (UUID: MIG-5f1e2d3c-4b5a-5968-8776-a5b4c3d2e1f0)\n"
    "  MIG 3g.40gb     Device  1: (UUID: MIG-6a0b1c2d-3e4f-5a6b-8c7d-9e8f7a6b5c4d)\n"
    "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-3b7e9d20-1c4f-4a8e-b6d2-7f9a0e1c2d31)\n";

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
  CHECK(d[0].uuid == "GPU-8f2c4b1a-5d3e-4c2b-9a1f-6e0d2c3b4a50");
  CHECK(d[1].memory_used_mib == 40213);
  CHECK(d[1].utilization_pct == 97);
  CHECK(d[1].memory_total_gib() == doctest::Approx(79.647).epsilon(0.001));
}

TEST_CASE("odd spacing, CRLF, blank lines and [N/A] readings are accepted") {
  const std::vector<GpuDevice> d = parse_gpu_query(
      "\n  0 ,NVIDIA A100-SXM4-40GB,40960 ,  [N/A], [Not Supported],[N/A]\r\n\n"
      "1,Tesla T4,15360,0,3,GPU-1");
  REQUIRE(d.size() == 2);
  CHECK(d[0].name == "NVIDIA A100-SXM4-40GB");
  CHECK(d[0].memory_total_mib == 40960);
  CHECK_FALSE(d[0].memory_used_mib);
  CHECK_FALSE(d[0].utilization_pct);
  CHECK(d[0].uuid.empty());
  CHECK(d[1].name == "Tesla T4");
  CHECK(d[1].utilization_pct == 3);
  CHECK(parse_gpu_query("").empty());
}

TEST_CASE("malformed nvidia-smi output is an error naming the line") {
  CHECK_THROWS_WITH_AS(
      parse_gpu_query("0, A, 1, 2, 3, GPU-1\n0, NVIDIA H100, 81559, 0, 0\n"),
      "nvidia-smi output line 2: expected 6 fields (index,name,memory.total,memory.used,"
      "utilization.gpu,uuid): '0, NVIDIA H100, 81559, 0, 0'",
      GpuQueryError);
  CHECK_THROWS_WITH_AS(parse_gpu_query("x, H100, 81559, 0, 0, GPU-1"),
                       doctest::Contains("bad GPU index"), GpuQueryError);
  CHECK_THROWS_WITH_AS(parse_gpu_query("0, H100, 80GB, 0, 0, GPU-1"),
                       doctest::Contains("bad memory.total"), GpuQueryError);
  CHECK_THROWS_WITH_AS(parse_gpu_query("0, H100, 81559, 1.5, 0, GPU-1"),
                       doctest::Contains("bad memory.used"), GpuQueryError);
  CHECK_THROWS_WITH_AS(
      parse_gpu_query("NVIDIA-SMI has failed because it couldn't communicate with the driver."),
      doctest::Contains("expected 6 fields"), GpuQueryError);
}

std::vector<int> visible(const std::string& value, const std::vector<MigInstance>& migs = {}) {
  return indices(filter_visible(parse_gpu_query(kTwoH100), migs, value).devices);
}

TEST_CASE("CUDA_VISIBLE_DEVICES narrows the devices as CUDA does") {
  const std::vector<GpuDevice> all =
      parse_gpu_query("0, G, 1, 0, 0, GPU-a\n1, G, 1, 0, 0, GPU-b\n2, G, 1, 0, 0, GPU-c\n");
  auto kept = [&](const std::string& value) {
    return indices(filter_visible(all, {}, value).devices);
  };
  CHECK(kept("2,0") == std::vector<int>{2, 0});
  CHECK(kept(" 1 ") == std::vector<int>{1});
  CHECK(kept("0,7,1") == std::vector<int>{0});  // stops at an unknown index
  CHECK(kept("").empty());
  CHECK(kept("-1").empty());
  CHECK(filter_visible(all, {}, "-1").warnings.empty());  // hiding every GPU on purpose
}

TEST_CASE("CUDA_VISIBLE_DEVICES may name GPUs by UUID or a prefix that names one") {
  CHECK(visible("GPU-3b7e9d20-1c4f-4a8e-b6d2-7f9a0e1c2d31") == std::vector<int>{1});
  CHECK(visible("GPU-3b7e") == std::vector<int>{1});
  CHECK(visible("GPU-3B7E,0") == std::vector<int>{1, 0});  // hex: case does not matter
  CHECK(visible("1,GPU-8f2c4b1a-5d3e-4c2b-9a1f-6e0d2c3b4a50") == std::vector<int>{1, 0});
  const std::vector<GpuDevice> devices =
      filter_visible(parse_gpu_query(kTwoH100), {}, "GPU-8f").devices;
  REQUIRE(devices.size() == 1);
  CHECK(devices[0].visible_id() == "0");  // a whole GPU: trials get its index
}

TEST_CASE(
    "an unknown or ambiguous CUDA_VISIBLE_DEVICES entry ends the list with a warning naming it") {
  const std::vector<GpuDevice> two = parse_gpu_query(kTwoH100);
  VisibleDevices v = filter_visible(two, {}, "0,GPU-deadbeef,1");
  CHECK(indices(v.devices) == std::vector<int>{0});
  REQUIRE(v.warnings.size() == 1);
  CHECK(v.warnings[0] ==
        "CUDA_VISIBLE_DEVICES=0,GPU-deadbeef,1: no GPU 'GPU-deadbeef' (nvidia-smi lists "
        "GPU-8f2c4b1a-5d3e-4c2b-9a1f-6e0d2c3b4a50, GPU-3b7e9d20-1c4f-4a8e-b6d2-7f9a0e1c2d31); CUDA "
        "ignores it and "
        "every entry after it");
  v = filter_visible(two, {}, "GPU-");
  CHECK(v.devices.empty());
  CHECK(v.warnings.at(0).find("'GPU-' is the start of several GPUs' UUIDs") != std::string::npos);
  CHECK(filter_visible(two, {}, "7")
            .warnings.at(0)
            .find("no GPU with index 7 (nvidia-smi lists 0, 1)") != std::string::npos);
  CHECK(filter_visible(two, {}, "cuda:0")
            .warnings.at(0)
            .find("'cuda:0' is not a GPU index, GPU-<uuid> or MIG-<uuid>") != std::string::npos);
}

TEST_CASE("nvidia-smi -L lists the MIG instances under their GPU") {
  const std::vector<MigInstance> migs = parse_mig_list(kMigList);
  REQUIRE(migs.size() == 2);
  CHECK(migs[0].gpu == 0);
  CHECK(migs[0].profile == "1g.10gb");
  CHECK(migs[0].uuid == "MIG-5f1e2d3c-4b5a-5968-8776-a5b4c3d2e1f0");
  CHECK(migs[1].profile == "3g.40gb");
  CHECK(parse_mig_list("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-8f2c)\n").empty());
}

TEST_CASE("MIG instances are devices of their own, named for their trials by the id given") {
  const std::vector<GpuDevice> two = parse_gpu_query(kTwoH100);
  const std::vector<MigInstance> migs = parse_mig_list(kMigList);
  VisibleDevices v = filter_visible(two, migs, "MIG-5f1e2d3c-4b5a-5968-8776-a5b4c3d2e1f0,MIG-6a0b");
  REQUIRE(v.devices.size() == 2);
  CHECK(v.warnings.empty());
  CHECK(v.devices[0].index == 0);
  CHECK(v.devices[0].is_mig());
  CHECK(v.devices[0].name == "MIG 1g.10gb on GPU 0");
  CHECK(v.devices[0].memory_total_mib == 10 * 1024);
  CHECK(v.devices[0].visible_id() == "MIG-5f1e2d3c-4b5a-5968-8776-a5b4c3d2e1f0");
  CHECK(v.devices[1].memory_total_mib == 40 * 1024);
  CHECK(v.devices[1].visible_id() == "MIG-6a0b");  // the prefix, as the user gave it
  CHECK(v.devices[1].uuid == "MIG-6a0b1c2d-3e4f-5a6b-8c7d-9e8f7a6b5c4d");

  // The older form names its GPU; without nvidia-smi -L its size is unknown.
  const std::string old = "MIG-GPU-3b7e9d20-1c4f-4a8e-b6d2-7f9a0e1c2d31/1/0";
  v = filter_visible(two, {}, old);
  REQUIRE(v.devices.size() == 1);
  CHECK(v.devices[0].index == 1);
  CHECK(v.devices[0].visible_id() == old);
  CHECK(v.warnings.at(0).find("its memory is unknown: planned as all of GPU 1's") !=
        std::string::npos);

  v = filter_visible(two, migs, "MIG-00000000");
  CHECK(v.devices.empty());
  CHECK(v.warnings.at(0).find("no MIG instance 'MIG-00000000' (nvidia-smi -L lists "
                              "MIG-5f1e2d3c-4b5a-5968-8776-a5b4c3d2e1f0, MIG-6a0b1c2d") !=
        std::string::npos);
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

TEST_CASE("hpo counts the cores it may run on, not the machine's") {
  cpu_set_t all;
  CPU_ZERO(&all);
  REQUIRE(::sched_getaffinity(0, sizeof all, &all) == 0);
  CHECK(available_cpu_cores() == CPU_COUNT(&all));
  // Pinned to one core (as taskset or a Slurm step would), hpo sees one.
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  }
  REQUIRE(::sched_setaffinity(0, sizeof one, &one) == 0);
  const int pinned = available_cpu_cores();
  ::sched_setaffinity(0, sizeof all, &all);
  CHECK(pinned == 1);
}

}  // namespace
}  // namespace hpo
