#include <doctest/doctest.h>

#include <string>

#include "hpo/config/config_error.h"
#include "hpo/gpu/slot_plan.h"

namespace hpo {
namespace {

std::vector<GpuDevice> gpus(std::vector<int> indices) {
  std::vector<GpuDevice> out;
  for (int i : indices) {
    GpuDevice d;
    d.index = i;
    d.name = "NVIDIA H100 80GB HBM3";
    d.memory_total_mib = 81559;
    out.push_back(d);
  }
  return out;
}

GpuProfile two_per_gpu() {
  GpuProfile p;
  p.name = "two";
  p.vram_gb = 24;
  p.max_parallel_trials = 2;
  p.memory_per_model_gb = 6;
  return p;
}

GpuProfile cpu_profile(int threads) {
  GpuProfile p;
  p.name = "cpu";
  p.cpu = true;
  p.max_parallel_trials = 0;
  p.threads_per_trial = threads;
  return p;
}

std::string env(const Slot& slot, const std::string& name) {
  for (const auto& [key, value] : slot.env) {
    if (key == name) return value;
  }
  return "<unset>";
}

CpuWants slot_workers(int n, bool pinned = false) {
  CpuWants w;
  w.workers = n;
  w.workers_pinned = pinned;
  return w;
}

std::vector<std::string> visible(const SlotPlan& plan) {
  std::vector<std::string> out;
  for (const Slot& s : plan.slots) out.push_back(env(s, "CUDA_VISIBLE_DEVICES"));
  return out;
}

TEST_CASE("2 GPUs x 2 per GPU: 4 slots, GPUs 0,0,1,1, cores split four ways") {
  const SlotPlan plan = plan_slots(gpus({0, 1}), two_per_gpu(), std::nullopt, 16);
  REQUIRE(plan.n_jobs() == 4);
  CHECK(plan.on_gpu);
  CHECK(plan.gpus == 2);
  CHECK(plan.capacity == 4);
  CHECK(plan.threads_per_trial == 4);
  CHECK(visible(plan) == std::vector<std::string>{"0", "0", "1", "1"});
  CHECK(plan.slots[1].name == "gpu0.w1");
  CHECK(plan.slots[2].gpu == 1);
  CHECK(plan.slots[2].worker == 0);
  for (const Slot& s : plan.slots) {
    CHECK(env(s, "OMP_NUM_THREADS") == "4");
    CHECK(env(s, "CUDA_DEVICE_ORDER") == "PCI_BUS_ID");
    CHECK(env(s, "HPO_SLOT") == s.name);
    CHECK(env(s, "HPO_GPU_MEMORY_FRACTION") == "<unset>");
    CHECK(env(s, "HPO_DEVICE") == "cuda");  // a trainer that cannot use it says no_cuda
  }
  CHECK(plan.warnings.empty());
  for (const Slot& s : plan_slots({}, cpu_profile(1), 2, 16).slots) {
    CHECK(env(s, "HPO_DEVICE") == "cpu");
    CHECK(env(s, "CUDA_VISIBLE_DEVICES").empty());
  }
}

TEST_CASE("fewer jobs than slots: every GPU gets one before any gets two") {
  SlotPlan plan = plan_slots(gpus({0, 1}), two_per_gpu(), 3, 16);
  CHECK(visible(plan) == std::vector<std::string>{"0", "0", "1"});
  CHECK(plan.threads_per_trial == 5);
  plan = plan_slots(gpus({0, 1}), two_per_gpu(), 2, 16);
  CHECK(visible(plan) == std::vector<std::string>{"0", "1"});
}

TEST_CASE("more jobs than slots are honoured with a warning") {
  const SlotPlan plan = plan_slots(gpus({0, 1}), two_per_gpu(), 5, 16);
  CHECK(plan.n_jobs() == 5);
  CHECK(visible(plan) == std::vector<std::string>{"0", "0", "0", "1", "1"});
  REQUIRE(plan.warnings.size() == 1);
  CHECK(plan.warnings[0].find("5 trials at once exceed the 4 slots of profile two") !=
        std::string::npos);
}

TEST_CASE("slots use nvidia-smi's indices of the visible GPUs, and the memory fraction") {
  GpuProfile p = two_per_gpu();
  p.memory_fraction = 0.45;
  const SlotPlan plan = plan_slots(gpus({1, 3}), p, std::nullopt, 2);
  CHECK(visible(plan) == std::vector<std::string>{"1", "1", "3", "3"});
  CHECK(plan.slots[3].name == "gpu3.w1");
  CHECK(env(plan.slots[0], "HPO_GPU_MEMORY_FRACTION") == "0.45");
  CHECK(plan.threads_per_trial == 1);  // never 0, even with fewer cores than trials
}

TEST_CASE("a MIG instance's slots name it by its id, apart from the other instances of its GPU") {
  std::vector<GpuDevice> migs = gpus({0, 0});
  migs[0].mig_id = "MIG-5f1e2d3c";
  migs[1].mig_id = "MIG-GPU-8f2c4b1a/1/0";
  const SlotPlan plan = plan_slots(migs, two_per_gpu(), std::nullopt, 8);
  CHECK(visible(plan) == std::vector<std::string>{"MIG-5f1e2d3c", "MIG-5f1e2d3c",
                                                  "MIG-GPU-8f2c4b1a/1/0", "MIG-GPU-8f2c4b1a/1/0"});
  CHECK(plan.slots[0].name == "mig0.w0");
  CHECK(plan.slots[3].name == "mig1.w1");
  CHECK(plan.slots[3].gpu == 0);  // its GPU, for the utilization sampler
}

TEST_CASE("each trial's data-loader slot_workers come out of its share of the cores") {
  SlotPlan plan = plan_slots(gpus({0, 1}), two_per_gpu(), std::nullopt, 16, slot_workers(2));
  CHECK(plan.threads_per_trial == 2);  // 16 / 4 = 4, minus 2 loader workers
  CHECK(plan.loader_workers == 2);
  CHECK(plan.threads_reason ==
        "16 core(s) / 4 trial(s) = 4, minus 2 data-loader worker(s) (NUM_WORKERS) = 2");
  CHECK(env(plan.slots[0], "OMP_NUM_THREADS") == "2");
  CHECK(env(plan.slots[0], "NUM_WORKERS") == "2");
  CHECK(plan.cpu_warning.empty());
  for (int n = 0; n <= 3; ++n) {  // threads + workers never exceed the share
    plan = plan_slots({}, cpu_profile(1), 4, 16, slot_workers(n));
    CHECK(plan.n_jobs() * (plan.threads_per_trial + n) <= 16);
  }
  CHECK(plan_slots(gpus({0}), two_per_gpu(), 1, 8).threads_reason == "8 core(s) / 1 trial(s) = 8");
}

TEST_CASE("workers that would take the whole share are lowered, and every slot gets the fit") {
  SlotPlan plan = plan_slots(gpus({0, 1}), two_per_gpu(), std::nullopt, 16, slot_workers(4));
  CHECK(plan.threads_per_trial == 1);
  CHECK(plan.loader_workers == 3);
  CHECK(plan.cpu_warning.empty());
  REQUIRE(plan.fit_notes.size() == 1);
  CHECK(plan.fit_notes[0].rfind("NUM_WORKERS: 4 -> 3, so that 4 trial(s)", 0) == 0);
  for (const Slot& s : plan.slots) {
    CHECK(env(s, "NUM_WORKERS") == "3");
    CHECK(env(s, "OMP_NUM_THREADS") == "1");
  }
  // Pinned, they stay, with a warning.
  plan = plan_slots(gpus({0, 1}), two_per_gpu(), std::nullopt, 16, slot_workers(4, true));
  CHECK(env(plan.slots[0], "NUM_WORKERS") == "4");
  CHECK(plan.cpu_warning ==
        "4 trial(s) x (1 thread(s) + 4 data-loader worker(s)) = 20 on 16 core(s): the CPU is "
        "oversubscribed; lower n_jobs or what env_fixed pins (NUM_WORKERS)");
  // A study without NUM_WORKERS leaves the trainer's own default alone.
  plan = plan_slots({}, cpu_profile(2), 1, 2);
  CHECK(env(plan.slots[0], "NUM_WORKERS") == "<unset>");
}

TEST_CASE("without a GPU: CPU slots of threads_per_trial threads, GPUs hidden") {
  SlotPlan plan = plan_slots({}, cpu_profile(2), std::nullopt, 16);
  CHECK_FALSE(plan.on_gpu);
  REQUIRE(plan.n_jobs() == 8);
  CHECK(plan.threads_per_trial == 2);
  CHECK(plan.slots[7].name == "cpu.w7");
  CHECK_FALSE(plan.slots[0].gpu);
  CHECK(env(plan.slots[0], "CUDA_VISIBLE_DEVICES") == "");
  CHECK(env(plan.slots[0], "OMP_NUM_THREADS") == "2");
  plan = plan_slots({}, cpu_profile(2), 3, 16);
  CHECK(plan.n_jobs() == 3);
  CHECK(plan.threads_per_trial == 5);
  plan = plan_slots({}, cpu_profile(4), std::nullopt, 2);
  CHECK(plan.n_jobs() == 1);  // at least one
  CHECK(plan.threads_per_trial == 2);
  CHECK(plan.warnings.empty());
}

TEST_CASE("a cpu profile's cap, CPU oversubscription, and a GPU profile without GPUs") {
  GpuProfile capped = cpu_profile(1);
  capped.max_parallel_trials = 3;
  CHECK(plan_slots({}, capped, std::nullopt, 16).n_jobs() == 3);
  SlotPlan plan = plan_slots({}, cpu_profile(1), 6, 4);
  REQUIRE(plan.warnings.size() == 1);
  CHECK(plan.warnings[0] == "6 trials at once on 4 CPU core(s): the CPU is oversubscribed");
  plan = plan_slots({}, two_per_gpu(), std::nullopt, 4);
  CHECK_FALSE(plan.on_gpu);
  CHECK(plan.n_jobs() == 4);
  REQUIRE(plan.warnings.size() == 1);
  CHECK(plan.warnings[0].find("none was found") != std::string::npos);
  // A cpu profile chosen on a GPU machine keeps trials off the GPUs.
  plan = plan_slots(gpus({0, 1}), cpu_profile(2), 2, 8);
  CHECK_FALSE(plan.on_gpu);
  CHECK(visible(plan) == std::vector<std::string>{"", ""});
}

TEST_CASE("--n-jobs is a positive number or auto") {
  CHECK_FALSE(parse_n_jobs("auto"));
  CHECK(parse_n_jobs("4") == 4);
  CHECK_THROWS_AS(parse_n_jobs("0"), ConfigError);
  CHECK_THROWS_AS(parse_n_jobs("four"), ConfigError);
  CHECK_THROWS_AS(parse_n_jobs(""), ConfigError);
  CHECK_THROWS_AS(parse_n_jobs("3x"), ConfigError);
  CHECK(parse_n_jobs("1024") == 1024);
  CHECK_THROWS_AS(parse_n_jobs("100000"), ConfigError);  // a thread a slot: aborted
}

TEST_CASE("the trials at once are -j's, else the study's n_jobs, else auto") {
  CHECK(planned_n_jobs("", 3) == 3);
  CHECK(planned_n_jobs("2", 3) == 2);
  CHECK_FALSE(planned_n_jobs("auto", 3));
  CHECK_FALSE(planned_n_jobs("", std::nullopt));
  CHECK_THROWS_AS(planned_n_jobs("0", 3), ConfigError);
}

}  // namespace
}  // namespace hpo
