// Serve mode (HPO_SERVE=1, docs/trainer-protocol.md): one hpo-trainer
// process runs trial after trial, so LibTorch's load and the panel data are
// paid once per hpo slot instead of once per trial.
//
// Requests arrive on stdin, one JSON object a line: {"argv": [...], "env":
// {...}, "stdout": FILE, "stderr": FILE}. Each is run as if argv were the
// process's command line, with env set on top of the server's own
// environment and fds 1 and 2 pointed at the two files; then {"exit": N}
// goes back on the server's original stdout. SIGTERM stops a running trial
// (exit 75); one while idle is a late one for the trial before, and is
// dropped. EOF on stdin ends the server.
#ifndef HPO_TRAINER_SERVE_H_
#define HPO_TRAINER_SERVE_H_

#include <chrono>
#include <functional>
#include <optional>

namespace hpo::trainer {

// Runs one trial with `argv` as its command line and returns its exit code;
// it must not throw. `arrived` is when the request came in, for the trial's
// load_s; none for the server's first trial, whose load_s counts from the
// process's start as a trial run on its own does.
using TrialRunner = std::function<int(
    int argc, char** argv, std::optional<std::chrono::steady_clock::time_point> arrived)>;

// The request loop. Returns the server's exit code: 0 after EOF; 2 after a malformed request; a
// crashed trial's code after its reply.
int serve(const TrialRunner& run_trial);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_SERVE_H_
