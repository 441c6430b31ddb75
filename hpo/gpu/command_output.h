// Runs a short helper program (nvidia-smi) and captures what it prints:
// argv only, never a shell, with a time limit so that a hung driver cannot
// hang hpo.
#ifndef HPO_GPU_COMMAND_OUTPUT_H_
#define HPO_GPU_COMMAND_OUTPUT_H_

#include <string>
#include <vector>

namespace hpo {

struct CommandOutput {
  bool started = false;  // false: the program could not be run at all
  bool timed_out = false;  // killed after the time limit
  int exit_code = -1;  // when it exited on its own; -1 otherwise
  std::string out;  // stdout
  std::string err;  // stderr, or why it did not start

  bool ok() const { return started && !timed_out && exit_code == 0; }
  // A one-line reason for a failure: "exit code 9: NVIDIA-SMI has failed ...".
  std::string problem() const;
};

// argv[0] is the program's path (see resolve_program). Output goes through
// temporary files, removed afterwards.
CommandOutput run_command(const std::vector<std::string>& argv, double timeout_s);

}  // namespace hpo

#endif  // HPO_GPU_COMMAND_OUTPUT_H_
