#include "hpo/launch/process_group.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "hpo/launch/process.h"
#include "hpo/run/trainer_record.h"
#include "tests/unit/temp_path.h"

namespace hpo {
namespace {

// Starts `script` in a shell of its own group and waits until it has written
// a pid to the file it is given as $1, so that its group is complete.
struct Group {
  explicit Group(const std::string& script) : pidfile(temp_path("hpo_group_test", "pid")) {
    std::remove(pidfile.c_str());
    LaunchSpec spec;
    spec.argv = {"/bin/sh", "-c", script, "sh", pidfile};
    spec.stdout_path = temp_path("hpo_group_test", "out");
    spec.stderr_path = temp_path("hpo_group_test", "err");
    process = std::make_unique<Process>(spec);
    for (int i = 0; i < 400 && member == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::ifstream(pidfile) >> member;
    }
    REQUIRE(member > 0);
  }
  ~Group() { ::kill(-process->pgid(), SIGKILL); }

  std::string pidfile;
  std::unique_ptr<Process> process;
  int member = 0;  // the pid written
};

bool has_member(int64_t pgid, int64_t pid) {
  for (const auto& m : live_group_members(pgid)) {
    if (m.pid == pid) return true;
  }
  return false;
}

TEST_CASE("end_process_group sends SIGTERM, waits the grace period, then SIGKILLs the rest") {
  // The shell checkpoints on SIGTERM; its child ignores SIGTERM. The child
  // writes its pid only once it ignores SIGTERM (an ignored signal stays
  // ignored across exec): written by the parent, the pid could be read, and
  // the group signalled, before the child's trap, and then the child died at
  // once and the group emptied before the grace (seen on a loaded machine).
  const std::string termfile = temp_path("hpo_group_test", "term");
  std::remove(termfile.c_str());
  Group g("trap 'touch " + termfile +
          "; exit 75' TERM; "
          "sh -c 'trap \"\" TERM; echo $$ > \"$1\"; exec sleep 30' child \"$1\" & wait");
  CHECK(has_member(g.process->pgid(), g.member));
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(end_process_group(g.process->pgid(), std::chrono::milliseconds(300)));
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(300));
  CHECK(live_group_members(g.process->pgid()).empty());
  CHECK(std::ifstream(termfile).good());
}

TEST_CASE("a dead run's trainer record: what is left of its group is ended") {
  // The trainer has exited (unreaped, as after the run that started it
  // died) and left its background job behind.
  Group g("sleep 30 & echo $! > \"$1\"");
  const TrainerRecord record = record_of(*g.process);
  // The shell itself may not have exited yet: then it is ended too.
  CHECK(end_leftover_trainer(TrainerRecord::from_json(record.to_json()), std::chrono::seconds(5)) >=
        1);
  CHECK_FALSE(has_member(g.process->pgid(), g.member));
}

TEST_CASE("a trainer record leaves alone groups that are not the trainer's") {
  Group g("sleep 30 & echo $! > \"$1\"; wait");
  const TrainerRecord record = record_of(*g.process);
  SUBCASE("its pid now names a younger process") {
    TrainerRecord reused = record;
    reused.process.start_ticks -= 1;
    CHECK(end_leftover_trainer(reused, std::chrono::seconds(0)) == 0);
  }
  SUBCASE("a member is older than the trainer") {
    TrainerRecord younger = record;
    younger.process.pid = 999999999;  // gone, and past any pid_max
    younger.process.start_ticks += 1000000;
    CHECK(end_leftover_trainer(younger, std::chrono::seconds(0)) == 0);
  }
  SUBCASE("it ran on another host") {
    TrainerRecord remote = record;
    remote.process.host = "elsewhere-" + remote.process.host;
    CHECK(end_leftover_trainer(remote, std::chrono::seconds(0)) == 0);
  }
  CHECK_FALSE(g.process->poll());
  CHECK(has_member(g.process->pgid(), g.member));
}

}  // namespace
}  // namespace hpo
