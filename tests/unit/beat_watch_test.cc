#include "hpo/run/beat_watch.h"

#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "tests/unit/temp_dir.h"

namespace hpo {
namespace {

using namespace std::chrono_literals;
using Clock = BeatWatch::Clock;

LaunchSpec sh(const TempDir& dir, const std::string& script) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.stdout_path = dir.path() + "/out";
  spec.stderr_path = dir.path() + "/err";
  return spec;
}

std::optional<ExitStatus> ends_within(Process& p, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (auto status = p.wait_for(10ms)) return status;
  }
  return std::nullopt;
}

TEST_CASE(
    "a trainer whose trial got no beat in for longer than the grace is stopped, then killed") {
  TempDir dir;
  BeatWatch watch(2s, 1s);
  const auto t0 = Clock::now();
  Process quits(sh(dir, "sleep 30"));
  // Ignores SIGTERM; only SIGKILL ends it.
  Process stays(sh(dir, "trap '' TERM; while :; do sleep 0.05; done"));
  watch.beat(1, t0);
  watch.beat(2, t0);
  watch.attach(1, quits);
  watch.attach(2, stays);

  watch.check(t0 + 2s);  // not past the grace yet
  CHECK_FALSE(ends_within(quits, 200ms));
  CHECK_FALSE(watch.stopped(1));

  watch.beat(2, t0 + 1s);  // a beat got in later for trial 2
  watch.check(t0 + 2100ms);
  const auto quit = ends_within(quits, 5000ms);
  REQUIRE(quit);
  CHECK(quit->signal == SIGTERM);
  CHECK(watch.stopped(1) == std::optional<Clock::duration>(2100ms));
  CHECK_FALSE(watch.stopped(2));

  watch.check(t0 + 3100ms);  // trial 2: SIGTERM now
  CHECK(watch.stopped(2) == std::optional<Clock::duration>(2100ms));
  CHECK_FALSE(ends_within(stays, 300ms));
  watch.check(t0 + 4000ms);  // not yet the SIGTERM grace
  CHECK_FALSE(ends_within(stays, 100ms));
  watch.check(t0 + 4100ms);
  const auto killed = ends_within(stays, 5000ms);
  REQUIRE(killed);
  CHECK(killed->signal == SIGKILL);
}

TEST_CASE("a trainer detached from the watch is never signalled, and a forgotten trial is gone") {
  TempDir dir;
  BeatWatch watch(1s, 1s);
  const auto t0 = Clock::now();
  Process p(sh(dir, "sleep 30"));
  watch.beat(7, t0);
  watch.attach(7, p);
  watch.detach(7);
  watch.check(t0 + 10s);
  CHECK_FALSE(ends_within(p, 200ms));
  CHECK_FALSE(watch.stopped(7));
  watch.forget(7);
  CHECK_FALSE(watch.stopped(7));
  p.signal_group(SIGKILL);
}

}  // namespace
}  // namespace hpo
