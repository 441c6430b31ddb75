#include "hpo/launch/trainer_server.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/unit/gone_within.h"
#include "tests/unit/temp_path.h"

namespace hpo {
namespace {

// A server in sh: `script` runs with the requests on its stdin and the
// replies on its stdout.
LaunchSpec sh_trial(const std::string& script, const std::string& number = "0") {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.env = {{"OMP_NUM_THREADS", "2"},
              {"HPO_TRIAL_NUMBER", number},
              {"HPO_CONFIG", "/runs/s/trial_000" + number + "/config.json"},
              {"OMP_NUM_THREADS", "3"}};  // later entries win, as for a process
  spec.stdout_path = temp_path("hpo_server_test", "out" + number);
  spec.stderr_path = temp_path("hpo_server_test", "err" + number);
  return spec;
}

ExitStatus end_of(TrainerServer& server, double seconds = 10) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto s = server.wait_for(std::chrono::milliseconds(20))) return *s;
  }
  FAIL("the trial did not end in time");
  return {};
}

TEST_CASE("trainer server: each trial is one request line and ends with its reply") {
  const std::string requests = temp_path("hpo_server_test", "requests");
  std::remove(requests.c_str());
  // Anything else on the reply channel is skipped; the reply line ends the trial.
  const std::string script = "while read -r line; do printf '%s\\n' \"$line\" >> " + requests +
                             "; echo 'progress: not a reply'; echo '{\"exit\": 3}'; done";
  int pid = 0;
  {
    TrainerServer server(sh_trial(script), temp_path("hpo_server_test", "server.log"));
    pid = server.process().pid();
    for (const std::string number : {"1", "2"}) {
      const LaunchSpec trial = sh_trial(script, number);
      REQUIRE(server.fits(trial));
      server.start(trial);
      CHECK_FALSE(server.fits(trial));  // busy with it
      const ExitStatus end = end_of(server);
      CHECK_FALSE(end.signaled);
      CHECK(end.code == 3);
      CHECK(server.replied());
      CHECK_FALSE(server.process().poll());  // the server goes on
    }
  }
  CHECK(gone_within(pid, 5));  // ended with its stdin
  std::ifstream in(requests);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    const nlohmann::json r = nlohmann::json::parse(line);
    const std::string number = std::to_string(++n);
    CHECK(r["argv"] == nlohmann::json::array({"/bin/sh", "-c", script}));
    CHECK(r["env"]["HPO_TRIAL_NUMBER"] == number);
    CHECK(r["env"]["OMP_NUM_THREADS"] == "3");
    CHECK(r["stdout"] == temp_path("hpo_server_test", "out" + number));
    CHECK(r["stderr"] == temp_path("hpo_server_test", "err" + number));
  }
  CHECK(n == 2);
  std::remove(requests.c_str());
  std::remove(temp_path("hpo_server_test", "server.log").c_str());
}

TEST_CASE("trainer server: a server that dies in a trial ends it with its own exit") {
  TrainerServer server(sh_trial("read -r line; exit 7"),
                       temp_path("hpo_server_test", "server.log"));
  const LaunchSpec trial = sh_trial("read -r line; exit 7", "1");
  server.start(trial);
  const ExitStatus end = end_of(server);
  CHECK(end.code == 7);
  CHECK_FALSE(server.replied());
  CHECK_FALSE(server.fits(trial));  // a new one must take the next
  std::remove(temp_path("hpo_server_test", "server.log").c_str());
}

TEST_CASE("trainer server: signals reach the server's group") {
  TrainerServer server(sh_trial("read -r line; sleep 30"),
                       temp_path("hpo_server_test", "server.log"));
  server.start(sh_trial("read -r line; sleep 30", "1"));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(server.poll());
  server.signal_group(SIGKILL);
  const ExitStatus end = end_of(server);
  CHECK(end.signaled);
  CHECK(end.signal == SIGKILL);
  std::remove(temp_path("hpo_server_test", "server.log").c_str());
}

TEST_CASE("trainer server: a stop sent as the trial starts is not lost") {
  // This server reads its request only after 0.3 s, ignoring SIGTERM until
  // then: a SIGTERM before the request is read is a late one for the trial
  // before (the protocol's rule 3). During a trial it stops at SIGTERM (75),
  // else it replies 0 after 5 s.
  const std::string script =
      "trap '' TERM; while sleep 0.3 && read -r line; do stopped=0; trap 'stopped=1' TERM; "
      "i=0; while [ $stopped = 0 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; "
      "trap '' TERM; if [ $stopped = 1 ]; then echo '{\"exit\": 75}'; "
      "else echo '{\"exit\": 0}'; fi; done";
  TrainerServer server(sh_trial(script), temp_path("hpo_server_test", "server.log"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // its trap set
  server.start(sh_trial(script, "1"));
  server.signal_group(SIGTERM);  // as Ctrl-C right after the trial was sent
  const auto sent = std::chrono::steady_clock::now();
  const ExitStatus end = end_of(server);
  CHECK(end.code == 75);
  CHECK(std::chrono::steady_clock::now() - sent < std::chrono::seconds(4));
  // A stop sent later is sent once: the next trial, stopped after 1.5 s,
  // still ends 75, and nothing is sent again into the trial after it.
  server.start(sh_trial(script, "2"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  server.signal_group(SIGTERM);
  CHECK(end_of(server).code == 75);
  std::remove(temp_path("hpo_server_test", "server.log").c_str());
}

TEST_CASE("trainer server: only trials with the same program and process-wide env fit") {
  const std::string script = "while read -r line; do echo '{\"exit\": 0}'; done";
  TrainerServer server(sh_trial(script), temp_path("hpo_server_test", "server.log"));
  CHECK(server.fits(sh_trial(script, "5")));  // the trial's own variables may differ
  LaunchSpec other_threads = sh_trial(script, "5");
  other_threads.env.emplace_back("OMP_NUM_THREADS", "8");
  CHECK_FALSE(server.fits(other_threads));
  LaunchSpec more = sh_trial(script, "5");
  more.env.emplace_back("NUM_WORKERS", "1");
  CHECK_FALSE(server.fits(more));
  LaunchSpec other_program = sh_trial(script, "5");
  other_program.argv[0] = "/bin/dash";
  CHECK_FALSE(server.fits(other_program));
  LaunchSpec resumed = sh_trial(script, "5");
  resumed.env.emplace_back("HPO_RESUME", "1");
  CHECK(server.fits(resumed));
  std::remove(temp_path("hpo_server_test", "server.log").c_str());
}

TEST_CASE("trainer server: its stderr is appended to the slot's log") {
  // Two hpo processes running one study share a slot's log: neither may
  // truncate what the other's server wrote.
  const std::string log = temp_path("hpo_server_test", "shared.log");
  std::ofstream(log) << "the other server's line\n";
  const std::string script = "echo 'this server' >&2; read -r line; echo '{\"exit\": 0}'";
  {
    TrainerServer server(sh_trial(script), log);
    server.start(sh_trial(script, "1"));
    CHECK(end_of(server).code == 0);
  }
  std::ifstream in(log);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  CHECK(first == "the other server's line");
  CHECK(second == "this server");
  std::remove(log.c_str());
}

TEST_CASE("trainer server: the trial variables are the protocol's") {
  for (const char* name : {"HPO_CONFIG", "HPO_REPORT_FILE", "HPO_TRIAL_DIR", "HPO_TRIAL_NUMBER",
                           "HPO_TRIAL_ID", "HPO_RESUME"})
    CHECK(is_trial_variable(name));
  for (const char* name : {"HPO_SLOT", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES", "HPO_CACHE_DIR"})
    CHECK_FALSE(is_trial_variable(name));
}

}  // namespace
}  // namespace hpo
