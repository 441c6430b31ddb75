#include <doctest/doctest.h>

#include <signal.h>

#include "hpo/run/oom.h"
#include "hpo/run/verdict.h"

namespace hpo {
namespace {

TEST_CASE("out-of-memory lines are found in the ways frameworks print them") {
  // LibTorch, uncaught: std::terminate then SIGABRT.
  CHECK(find_oom_line("epoch 1\nterminate called after throwing an instance of 'c10::OutOfMemoryError'\n"
                      "  what():  CUDA out of memory. Tried to allocate 2.00 GiB\n") ==
        "terminate called after throwing an instance of 'c10::OutOfMemoryError'");
  CHECK(find_oom_line("torch.cuda.OutOfMemoryError: CUDA out of memory.") != "");
  CHECK(find_oom_line("RuntimeError: HIP out of memory. Tried to allocate") != "");
  CHECK(find_oom_line("[enforce fail at alloc_cpu.cpp:75] . DefaultCPUAllocator: can't allocate memory") != "");
  CHECK(find_oom_line("what():  std::bad_alloc") != "");
  CHECK(find_oom_line("loss is nan\nsegmentation fault") == "");
}

TEST_CASE("a crash with an OOM line, or a SIGKILL hpo did not send, is an oom failure") {
  TrainerRun run;
  run.exit = ExitStatus{true, 0, SIGABRT};
  run.oom_line = "CUDA out of memory. Tried to allocate 2.00 GiB";
  auto v = judge(run, "m");
  CHECK(v.oom);
  CHECK(v.reason == "oom: CUDA out of memory. Tried to allocate 2.00 GiB (killed by signal 6 (SIGABRT))");

  run.oom_line.clear();
  run.exit = ExitStatus{true, 0, SIGKILL};
  CHECK(judge(run, "m").oom);

  run.exit = ExitStatus{false, 1, 0};
  CHECK_FALSE(judge(run, "m").oom);  // a plain crash

  run.exit = ExitStatus{true, 0, SIGKILL};
  run.timed_out = true;  // hpo's own SIGKILL after a timeout
  CHECK_FALSE(judge(run, "m").oom);
}

TEST_CASE("an OOM retry halves the batch and doubles grad_accum, keeping the effective batch") {
  nlohmann::ordered_json config = {{"batch_size", 2048}, {"grad_accum", 2}, {"lr", 1e-3}};
  const auto retry = halve_batch(config);
  REQUIRE(retry);
  CHECK((*retry)["batch_size"] == 1024);
  CHECK((*retry)["grad_accum"] == 4);
  CHECK((*retry)["lr"] == 1e-3);
  CHECK((*halve_batch({{"batch_size", 7}}))["grad_accum"] == 2);  // absent grad_accum counts as 1
  CHECK_FALSE(halve_batch({{"batch_size", 1}}));
  CHECK_FALSE(halve_batch({{"lr", 1e-3}}));
}

}  // namespace
}  // namespace hpo
