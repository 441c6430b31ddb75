// What the trial runner watches while a trial's trainer runs: its own
// process (process.h), or a trial sent to a trainer kept running across
// trials (trainer_server.h). Either way the trial ends with an exit status,
// and signals reach the process group that runs it.
#ifndef HPO_LAUNCH_RUNNING_TRAINER_H_
#define HPO_LAUNCH_RUNNING_TRAINER_H_

#include <chrono>
#include <optional>
#include <string>

namespace hpo {

struct ExitStatus {
  bool signaled = false;
  int code = 0;  // the exit code, when !signaled
  int signal = 0;  // the signal that ended it, when signaled

  bool success() const { return !signaled && code == 0; }
  // "exit code 3", "killed by signal 9 (SIGKILL)"
  std::string describe() const;
};

class RunningTrainer {
 public:
  virtual ~RunningTrainer() = default;

  // How the trial ended, once it has; never blocks.
  virtual std::optional<ExitStatus> poll() = 0;
  // Waits up to `timeout` for the trial to end, then returns poll(); the end
  // wakes the wait at once.
  virtual std::optional<ExitStatus> wait_for(std::chrono::microseconds timeout) = 0;
  // Sends `sig` to the process group running the trial; nothing once that
  // process has been reaped.
  virtual void signal_group(int sig) = 0;
};

}  // namespace hpo

#endif  // HPO_LAUNCH_RUNNING_TRAINER_H_
