// Errors and exit codes of hpo-trainer (the trainer protocol).
#ifndef HPO_TRAINER_ERROR_H_
#define HPO_TRAINER_ERROR_H_

#include <stdexcept>
#include <string>

namespace hpo::trainer {

// Exit codes the orchestrator relies on.
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;  // bad usage, config or data; message on stderr
constexpr int kExitDiverged = 3;  // the loss went non-finite before any epoch scored
constexpr int kExitStopped = 75;  // SIGTERM: checkpoint written, resumable (EX_TEMPFAIL)

// Bad usage, config or data. The message names the file and the key or line,
// so the user can fix the input; main() turns it into exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Training diverged (an inf or NaN loss) before any epoch had finite scores:
// there is no result to report, and ranking NaN predictions would invent one.
class Diverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_ERROR_H_
