// A trial's directory or files in the runs directory could not be written:
// a full or read-only disk, permissions, a file in the way. The machine's
// doing, not a bug in hpo, so `hpo` says so and exits 7 (exit_codes.h).
#ifndef HPO_RUN_RUNS_DIR_ERROR_H_
#define HPO_RUN_RUNS_DIR_ERROR_H_

#include <stdexcept>
#include <string>

namespace hpo {

class RunsDirError : public std::runtime_error {
 public:
  explicit RunsDirError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace hpo

#endif  // HPO_RUN_RUNS_DIR_ERROR_H_
