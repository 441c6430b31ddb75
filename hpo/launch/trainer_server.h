// A trainer kept running across trials: the serve protocol
// (docs/trainer-protocol.md). hpo starts the trainer once, with HPO_SERVE=1,
// its stdin and stdout pipes to hpo; then each trial is one request line
// (its argv, environment and log files) and ends with one reply line,
// {"exit": N}. What a trainer loads before its first step (LibTorch, the
// data, a CUDA context) is then loaded once per slot, not once per trial.
//
// A trainer that serves gets the trials of one slot only, and only while
// the program and every environment variable but the trial's own (its
// config, report file, directory, number, id and resume flag) stay the
// same: whatever a process reads once at its start cannot differ.
#ifndef HPO_LAUNCH_TRAINER_SERVER_H_
#define HPO_LAUNCH_TRAINER_SERVER_H_

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "hpo/launch/process.h"
#include "hpo/launch/running_trainer.h"

namespace hpo {

class TrainerServer : public RunningTrainer {
 public:
  // Starts the trainer for trials like `trial`, its stderr to `log_path`.
  // Throws LaunchError if it cannot be started.
  TrainerServer(const LaunchSpec& trial, const std::string& log_path);
  // Closes its stdin, which ends a waiting server, and gives it a moment to
  // exit before ~Process kills what is left.
  ~TrainerServer() override;

  // Whether `trial` may run here: the same program and process-wide
  // environment, and the server still running.
  bool fits(const LaunchSpec& trial);

  // Sends a trial (its argv, env and log files). Its end is what poll()
  // returns next: the reply's exit code, or the server's own end if it died
  // first. Throws LaunchError when the request cannot be written.
  void start(const LaunchSpec& trial);

  // Never blocks while the server runs; once it has closed its reply pipe
  // without a reply, waits up to seconds for it to exit (then kills it), so
  // that the trial's end is the server's exit status.
  std::optional<ExitStatus> poll() override;
  std::optional<ExitStatus> wait_for(std::chrono::microseconds timeout) override;
  // A SIGTERM sent within kUnsure of the request is sent again then, once:
  // a server takes a SIGTERM that comes before it has read its request for a
  // late one meant for the trial before (the protocol's rule 3), and a stop
  // sent just after the request may have come that early.
  void signal_group(int sig) override;
  static constexpr std::chrono::milliseconds kUnsure{1000};

  Process& process() { return process_; }
  // Whether the last trial ended with a reply. A trainer that does not serve
  // runs its first trial as a process of its own would and exits: no reply.
  bool replied() const { return replied_; }

 private:
  // Reads what the reply pipe holds; true at its end (the server gone).
  bool read_replies();

  const std::string program_;  // see fits()
  const std::map<std::string, std::string> env_;  // every variable but the trial's own
  Process process_;
  bool gone_ = false;  // its reply pipe reached its end, or it replied that it exits
  std::string pending_;  // reply bytes short of a whole line
  std::optional<ExitStatus> trial_end_;
  std::chrono::steady_clock::time_point sent_;  // the current request's
  std::optional<std::chrono::steady_clock::time_point> term_again_;  // see signal_group()
  bool in_trial_ = false;
  bool replied_ = false;
};

// Whether a server that replied `code` takes more trials: a trial that
// completed, was refused (2), diverged (3) or was stopped (75). After any
// other the server exits (docs/trainer-protocol.md, rule 4).
bool keeps_serving(int code);

// The variables that name the trial itself (docs/trainer-protocol.md);
// every other one must match for a server to take a trial.
bool is_trial_variable(const std::string& name);

}  // namespace hpo

#endif  // HPO_LAUNCH_TRAINER_SERVER_H_
