#include "hpo/launch/process.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "hpo/launch/program_path.h"
#include "tests/unit/gone_within.h"
#include "tests/unit/temp_path.h"

namespace hpo {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ExitStatus wait_for(Process& p, double seconds = 10) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto s = p.poll()) return *s;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  FAIL("process did not exit in time");
  return {};
}

// The pid a process wrote to `path`, once it has; 0 if none came.
int pid_from_file(const std::string& path) {
  int pid = 0;
  for (int i = 0; i < 400 && pid == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::ifstream(path) >> pid;
  }
  return pid;
}

LaunchSpec sh(const std::string& script) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.stdout_path = temp_path("hpo_proc_test", "out");
  spec.stderr_path = temp_path("hpo_proc_test", "err");
  return spec;
}

TEST_CASE("argv reaches the program verbatim: no shell expansion") {
  LaunchSpec spec;
  spec.argv = {"/bin/echo", "$HOME", "a b", "`id`", ";", "*"};
  spec.stdout_path = temp_path("hpo_proc_test", "echo");
  spec.stderr_path = temp_path("hpo_proc_test", "echo_err");
  Process p(spec);
  CHECK(wait_for(p).success());
  CHECK(slurp(spec.stdout_path) == "$HOME a b `id` ; *\n");
}

TEST_CASE("environment is the parent's plus the overrides, later ones winning") {
  ::setenv("HPO_TEST_PARENT", "from-parent", 1);
  auto spec = sh("echo \"$HPO_TEST_PARENT $HPO_A $HPO_B\"; echo oops >&2");
  spec.env = {{"HPO_A", "1"}, {"HPO_B", "2"}, {"HPO_A", "3"}};
  Process p(spec);
  CHECK(wait_for(p).success());
  CHECK(slurp(spec.stdout_path) == "from-parent 3 2\n");
  CHECK(slurp(spec.stderr_path) == "oops\n");
}

TEST_CASE("exit codes and signals are told apart") {
  {
    Process p(sh("exit 3"));
    const auto s = wait_for(p);
    CHECK_FALSE(s.signaled);
    CHECK(s.code == 3);
    CHECK(s.describe() == "exit code 3");
  }
  {
    Process p(sh("kill -9 $$"));
    const auto s = wait_for(p);
    CHECK(s.signaled);
    CHECK(s.signal == SIGKILL);
    CHECK(s.describe() == "killed by signal 9 (SIGKILL)");
  }
}

TEST_CASE("signal_group reaches the trainer's own children") {
  // The shell starts a grandchild that records its pid, then both wait.
  const auto pidfile = temp_path("hpo_proc_test", "grandchild");
  std::remove(pidfile.c_str());
  Process p(sh("sleep 30 & echo $! > " + pidfile + "; wait"));
  const int grandchild = pid_from_file(pidfile);
  REQUIRE(grandchild > 0);
  p.signal_group(SIGTERM);
  const auto s = wait_for(p);
  CHECK(s.signaled);
  // The grandchild got SIGTERM too (give the kernel a moment to reap it).
  CHECK(gone_within(grandchild, 2));
}

TEST_CASE("what a trainer leaves running in its group is killed once it has exited") {
  // A shell's background job: not waited for, still in the trainer's group.
  const auto pidfile = temp_path("hpo_proc_test", "leftover");
  std::remove(pidfile.c_str());
  Process p(sh("sleep 30 & echo $! > " + pidfile));
  const int leftover = pid_from_file(pidfile);
  REQUIRE(leftover > 0);
  CHECK(wait_for(p).success());
  CHECK(gone_within(leftover, 2));
}

TEST_CASE("a trainer started from a thread that has ended runs on while hpo lives") {
  // The kernel's parent-death signal follows the thread that started the
  // child; TBB's worker threads end when idle, hpo does not.
  std::unique_ptr<Process> p;
  std::thread([&] { p = std::make_unique<Process>(sh("sleep 30")); }).join();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK_FALSE(p->poll());
  p->signal_group(SIGKILL);
}

TEST_CASE("a trainer dies with the hpo that started it, even by kill -9") {
  LaunchSpec spec;
  spec.argv = {HPO_PROCESS_TEST_HELPER, "/bin/sleep", "30"};
  spec.stdout_path = temp_path("hpo_proc_test", "helper_out");
  spec.stderr_path = temp_path("hpo_proc_test", "helper_err");
  std::remove(spec.stdout_path.c_str());
  Process hpo(spec);
  const int trainer = pid_from_file(spec.stdout_path);
  REQUIRE(trainer > 0);
  CHECK_FALSE(gone_within(trainer, 0.1));
  ::kill(hpo.pid(), SIGKILL);
  CHECK(wait_for(hpo).signal == SIGKILL);
  const bool gone = gone_within(trainer, 2);
  CHECK(gone);
  if (!gone) ::kill(trainer, SIGKILL);
}

TEST_CASE("a program that does not exist is a LaunchError") {
  LaunchSpec spec;
  spec.argv = {"/nonexistent/trainer"};
  spec.stdout_path = temp_path("hpo_proc_test", "x");
  spec.stderr_path = temp_path("hpo_proc_test", "y");
  CHECK_THROWS_AS(Process{spec}, LaunchError);
}

TEST_CASE("resolve_program finds absolute paths and PATH entries, rejects missing ones") {
  CHECK(resolve_program("/bin/sh") == "/bin/sh");
  CHECK_FALSE(resolve_program("sh").empty());
  CHECK(resolve_program("surely-no-such-program-hpo").empty());
  CHECK(resolve_program("/etc/passwd").empty());  // not executable
  CHECK(resolve_program("").empty());
}

}  // namespace
}  // namespace hpo

namespace hpo {
namespace {

TEST_CASE("the trainer inherits no descriptors beyond stdin, stdout and stderr") {
  std::ofstream held(
      temp_path("hpo_proc_test", "held"));  // an fd open in the parent, not close-on-exec
  REQUIRE(held.good());
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "ls /proc/self/fd"};
  spec.stdout_path = temp_path("hpo_proc_test", "fds");
  spec.stderr_path = temp_path("hpo_proc_test", "fds_err");
  Process p(spec);
  CHECK(wait_for(p).success());
  // ls itself opens one directory fd while listing.
  std::istringstream fds(slurp(spec.stdout_path));
  int count = 0;
  for (std::string fd; fds >> fd;) ++count;
  CHECK(count <= 4);
}

TEST_CASE("the trainer starts with no signal blocked, whatever the launching thread blocks") {
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old);
  Process p(sh("kill -TERM $$; exit 0"));
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  const ExitStatus s = wait_for(p);
  CHECK(s.signaled);
  CHECK(s.signal == SIGTERM);
}

TEST_CASE("the launching thread's signal mask is as it was after a start") {
  sigset_t before, after;
  pthread_sigmask(SIG_SETMASK, nullptr, &before);
  Process p(sh("exit 0"));
  pthread_sigmask(SIG_SETMASK, nullptr, &after);
  CHECK(wait_for(p).success());
  for (int sig = 1; sig < NSIG; ++sig) CHECK(sigismember(&before, sig) == sigismember(&after, sig));
}

TEST_CASE("wait_for ends when the process does, and times out while it runs") {
  Process slow(sh("sleep 5"));
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_FALSE(slow.wait_for(std::chrono::milliseconds(50)));
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(50));
  slow.signal_group(SIGKILL);
  // Far longer than the process takes to die: the wait must end with it.
  const auto t1 = std::chrono::steady_clock::now();
  const auto status = slow.wait_for(std::chrono::seconds(60));
  REQUIRE(status);
  CHECK(status->signal == SIGKILL);
  CHECK(std::chrono::steady_clock::now() - t1 < std::chrono::seconds(30));
}

}  // namespace
}  // namespace hpo
