// One trainer subprocess: started from an argv list (never through a
// shell), with its own environment, its output in files, and in a process
// group of its own so that signals reach every process the trainer starts
// (data-loader workers, for one) and a Ctrl-C at the terminal reaches hpo
// alone, which then decides what the trainers get.
//
// Nothing of a trainer outlives hpo's knowing: the trainer is killed when the
// hpo process dies, even by kill -9 (see launcher_thread.h), and once it has
// exited, whatever it left running in its group is killed too. Its children
// do not die with hpo (the kernel signals only the trainer); a resumed trial
// ends them (see process_group.h).
#ifndef HPO_LAUNCH_PROCESS_H_
#define HPO_LAUNCH_PROCESS_H_

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hpo/launch/running_trainer.h"

namespace hpo {

class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LaunchSpec {
  std::vector<std::string> argv;  // argv[0] is the program's path
  // Set on top of the parent's environment, in order (later ones win).
  std::vector<std::pair<std::string, std::string>> env;
  std::string stdout_path;
  std::string stderr_path;
  // Instead of stdout_path and /dev/null: stdin and stdout are pipes to hpo
  // (request_fd(), reply_fd()), for a trainer that serves trial after trial
  // (trainer_server.h); stderr_path is appended to, not truncated.
  bool pipes = false;
};

class Process : public RunningTrainer {
 public:
  // Starts the program; throws LaunchError if it cannot be started.
  explicit Process(const LaunchSpec& spec);
  // A process still running when its owner goes away is killed, group and
  // all: no trainer outlives the hpo that started it unnoticed.
  ~Process() override;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  int pid() const;
  // The trainer's process group: its own, named by its pid.
  int pgid() const { return pid(); }

  // The exit status once the process has ended; never blocks. On the first
  // call that sees the end, what is left of the group is killed.
  std::optional<ExitStatus> poll() override;
  // Waits up to `timeout` for the process to end, then returns poll(). The
  // end wakes the wait at once, so a trainer that finishes in a millisecond
  // is not left waiting out a polling interval.
  std::optional<ExitStatus> wait_for(std::chrono::microseconds timeout) override;

  // Sends `sig` to the process group (the trainer and its children); once
  // the trainer was reaped, nothing. Safe from another thread than the one
  // that polls.
  void signal_group(int sig) override;

  // With LaunchSpec::pipes: the write end of its stdin and the read end of
  // its stdout, owned by the Process (-1 otherwise, or once closed).
  int request_fd() const;
  int reply_fd() const;
  // Closes its stdin: a serving trainer takes that as its end.
  void close_requests();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Waits up to `timeout` for `fd` to be readable or at its end (a pidfd once
// its process has ended, a pipe once written to or closed); a signal ends
// the wait early.
void wait_readable(int fd, std::chrono::microseconds timeout);

}  // namespace hpo

#endif  // HPO_LAUNCH_PROCESS_H_
