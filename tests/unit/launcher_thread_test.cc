#include "hpo/launch/launcher_thread.h"

#include <doctest/doctest.h>

#include <ostream>
#include <stdexcept>
#include <thread>

namespace hpo {
namespace {

std::thread::id launcher_id() {
  std::thread::id id;
  run_on_launcher_thread([&id] { id = std::this_thread::get_id(); });
  return id;
}

TEST_CASE("every caller's work runs on the one launcher thread, which outlives its callers") {
  const std::thread::id first = launcher_id();
  CHECK(first != std::this_thread::get_id());
  std::thread::id from_other;
  std::thread([&from_other] { from_other = launcher_id(); }).join();
  CHECK(from_other == first);
  CHECK(launcher_id() == first);
}

TEST_CASE("what the work throws reaches its caller, and the thread goes on") {
  CHECK_THROWS_WITH_AS(run_on_launcher_thread([] { throw std::runtime_error("no such program"); }),
                       "no such program", std::runtime_error);
  int ran = 0;
  run_on_launcher_thread([&ran] { ++ran; });
  CHECK(ran == 1);
}

}  // namespace
}  // namespace hpo
