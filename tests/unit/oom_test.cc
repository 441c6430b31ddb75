#include "hpo/run/oom.h"

#include <doctest/doctest.h>
#include <signal.h>

#include "hpo/run/oom_kills.h"
#include "hpo/run/verdict.h"

namespace hpo {
namespace {

TEST_CASE("out-of-memory lines are found in the ways frameworks print them") {
  // LibTorch, uncaught: std::terminate then SIGABRT.
  CHECK(find_oom_line(
            "epoch 1\nterminate called after throwing an instance of 'c10::OutOfMemoryError'\n"
            "  what():  CUDA out of memory. Tried to allocate 2.00 GiB\n") ==
        "terminate called after throwing an instance of 'c10::OutOfMemoryError'");
  CHECK(find_oom_line("torch.cuda.OutOfMemoryError: CUDA out of memory.") != "");
  CHECK(find_oom_line("RuntimeError: HIP out of memory. Tried to allocate") != "");
  CHECK(find_oom_line(
            "[enforce fail at alloc_cpu.cpp:75] . DefaultCPUAllocator: can't allocate memory") !=
        "");
  CHECK(find_oom_line("what():  std::bad_alloc") != "");
  CHECK(find_oom_line("loss is nan\nsegmentation fault") == "");
}

TEST_CASE("a crash with an OOM line, or a SIGKILL hpo did not send, is an oom failure") {
  TrainerRun run;
  run.exit = ExitStatus{true, 0, SIGABRT};
  run.oom_line = "CUDA out of memory. Tried to allocate 2.00 GiB";
  auto v = judge(run, "m");
  CHECK(v.oom);
  CHECK(v.reason ==
        "oom: CUDA out of memory. Tried to allocate 2.00 GiB (killed by signal 6 (SIGABRT))");

  run.oom_line.clear();
  run.exit = ExitStatus{true, 0, SIGKILL};
  CHECK(judge(run, "m").oom);

  run.exit = ExitStatus{false, 1, 0};
  CHECK_FALSE(judge(run, "m").oom);  // a plain crash

  run.exit = ExitStatus{true, 0, SIGKILL};
  run.timed_out = true;  // hpo's own SIGKILL after a timeout
  CHECK_FALSE(judge(run, "m").oom);
}

// An operator's `kill -9` of a hung trainer is no OOM: where the kernel's
// count of OOM kills did not move while the trainer ran, its SIGKILL came
// from elsewhere, and the trial must not be retried at a smaller batch.
TEST_CASE("a SIGKILL while the kernel's OOM killer did not strike is a plain failure") {
  TrainerRun run;
  run.exit = ExitStatus{true, 0, SIGKILL};
  run.oom_killer_struck = false;
  const auto v = judge(run, "m");
  CHECK_FALSE(v.oom);
  CHECK(v.state == TrialState::kFail);
  CHECK(v.reason ==
        "trainer failed: killed by SIGKILL from outside hpo, and not by the kernel's "
        "out-of-memory killer (its count of kills, /proc/vmstat oom_kill, did not move; no "
        "user-space OOM killer runs): someone's kill -9");
  run.oom_killer_struck = true;
  CHECK(judge(run, "m").oom);
  run.oom_killer_struck.reset();  // no count to read: the likelier cause stands
  CHECK(judge(run, "m").oom);
  run.oom_killer_struck = false;  // a log that says so still rules
  run.oom_line = "CUDA out of memory";
  CHECK(judge(run, "m").oom);
}

TEST_CASE("the kernel's OOM kill count is read from /proc/vmstat's text") {
  CHECK(parse_oom_kills("nr_free_pages 12\noom_kill 7\nnuma_hit 3\n") == 7u);
  CHECK(parse_oom_kills("oom_kill 0") == 0u);
  CHECK_FALSE(parse_oom_kills("nr_free_pages 12\noom_killer 4\n").has_value());
  CHECK_FALSE(parse_oom_kills("").has_value());
  CHECK_FALSE(parse_oom_kills("oom_kill x\n").has_value());
  CHECK(is_user_space_oom_killer("systemd-oomd"));
  CHECK(is_user_space_oom_killer("earlyoom"));
  CHECK_FALSE(is_user_space_oom_killer("systemd-journal"));
  CHECK_FALSE(is_user_space_oom_killer("earlyoom2"));
}

int64_t effective(const nlohmann::ordered_json& config) {
  return config["batch_size"].get<int64_t>() * config.value("grad_accum", int64_t{1});
}

bool is_prime(int64_t n) {
  for (int64_t f = 2; f * f <= n; ++f) {
    if (n % f == 0) return false;
  }
  return n >= 2;
}

TEST_CASE("an OOM retry halves an even batch and doubles grad_accum") {
  nlohmann::ordered_json config = {{"batch_size", 2048}, {"grad_accum", 2}, {"lr", 1e-3}};
  const auto retry = halve_batch(config);
  REQUIRE(retry);
  CHECK((*retry)["batch_size"] == 1024);
  CHECK((*retry)["grad_accum"] == 4);
  CHECK((*retry)["lr"] == 1e-3);
  CHECK((*halve_batch({{"batch_size", 2}}))["grad_accum"] == 2);  // absent grad_accum counts as 1
  CHECK_FALSE(halve_batch({{"batch_size", 1}}));
  CHECK_FALSE(halve_batch({{"lr", 1e-3}}));
}

TEST_CASE("an OOM retry keeps the effective batch exactly whenever the batch has a factor") {
  // 375 = 3 x 125: the largest smaller batch that divides it is 125.
  const auto retry = halve_batch({{"batch_size", 375}, {"grad_accum", 2}});
  REQUIRE(retry);
  CHECK((*retry)["batch_size"] == 125);
  CHECK((*retry)["grad_accum"] == 6);
  for (int64_t b = 2; b <= 5000; ++b) {
    if (is_prime(b)) continue;
    for (int64_t k : {1, 3}) {
      const nlohmann::ordered_json config = {{"batch_size", b}, {"grad_accum", k}};
      const auto smaller = halve_batch(config);
      REQUIRE(smaller);
      CAPTURE(b);
      CHECK(effective(*smaller) == b * k);
      CHECK((*smaller)["batch_size"].get<int64_t>() <= b / 2);  // at least halves the memory
    }
  }
}

TEST_CASE(
    "an OOM retry of a prime batch rounds half up: grad_accum more samples per optimizer step") {
  // No smaller batch divides a prime one: (b + 1) / 2 with grad_accum doubled
  // is the nearest effective batch, k samples more than before.
  for (int64_t b : {3, 7, 13, 383}) {
    const auto retry = halve_batch({{"batch_size", b}, {"grad_accum", 2}});
    REQUIRE(retry);
    CHECK((*retry)["batch_size"] == (b + 1) / 2);
    CHECK((*retry)["grad_accum"] == 4);
    CHECK(effective(*retry) == (b + 1) * 2);
  }
}

}  // namespace
}  // namespace hpo
