#include "hpo/run/owner.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hpo {
namespace {

TEST_CASE("the current process is a live owner, round-tripped through JSON") {
  const Owner me = current_owner();
  CHECK(me.pid == ::getpid());
  CHECK(me.start_ticks > 0);
  const Owner back = Owner::from_json(me.to_json());
  CHECK(back.host == me.host);
  CHECK(back.pid == me.pid);
  CHECK(back.start_ticks == me.start_ticks);
  CHECK_FALSE(owner_is_dead(back));
}

TEST_CASE("an exited process is a dead owner; a reused pid is too") {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  Owner o = current_owner();
  o.pid = child;
  o.start_ticks = process_start_ticks(child);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(owner_is_dead(o));

  Owner reused = current_owner();
  reused.start_ticks += 1;  // same pid, different process start time
  CHECK(owner_is_dead(reused));
}

TEST_CASE("look-alikes: one host name and pid, another PID namespace or boot, are not judged") {
  const Owner& me = current_owner();
  CHECK_FALSE(me.boot_id.empty());
  CHECK_FALSE(me.pid_ns.empty());
  CHECK(me.worker.size() == 32);
  CHECK(Owner::from_json(me.to_json()).worker == me.worker);
  Owner twin = me;
  twin.pid = 999999999;  // no such process here
  CHECK(owner_is_dead(twin));
  twin.pid_ns = "0:1";  // a container's: its pid means nothing here
  CHECK_FALSE(in_this_pid_namespace(twin));
  CHECK_FALSE(owner_is_dead(twin));
  twin = me;
  twin.pid = 999999999;
  twin.boot_id = "another-boot";  // a machine with our name, or ours before a reboot
  CHECK_FALSE(owner_is_dead(twin));
  twin.boot_id.clear();  // an older hpo's record
  CHECK_FALSE(owner_is_dead(twin));
}

TEST_CASE("owners on other hosts or without identity are never judged dead") {
  Owner remote = current_owner();
  remote.host = "another-host-" + remote.host;
  remote.pid = 999999999;
  CHECK_FALSE(owner_is_dead(remote));
  CHECK_FALSE(owner_is_dead(Owner::from_json(nlohmann::json::object())));
  CHECK_FALSE(owner_is_dead(Owner::from_json("garbage")));
}

}  // namespace
}  // namespace hpo
