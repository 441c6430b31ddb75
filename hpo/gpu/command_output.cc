#include "hpo/gpu/command_output.h"

#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "hpo/launch/process.h"

namespace hpo {

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A private scratch directory for the two output files, gone when it goes.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "hpo_cmd_XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

std::string CommandOutput::problem() const {
  if (!started) return err;
  if (timed_out) return "timed out";
  std::string first_line = err.empty() ? out : err;
  first_line = first_line.substr(0, first_line.find('\n'));
  return "exit code " + std::to_string(exit_code) + (first_line.empty() ? "" : ": " + first_line);
}

CommandOutput run_command(const std::vector<std::string>& argv, double timeout_s) {
  CommandOutput result;
  const ScratchDir dir;
  if (dir.path().empty()) {
    result.err = "cannot create a temporary directory";
    return result;
  }
  LaunchSpec spec;
  spec.argv = argv;
  spec.stdout_path = (dir.path() / "out").string();
  spec.stderr_path = (dir.path() / "err").string();
  try {
    Process process(spec);
    result.started = true;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    std::optional<ExitStatus> status;
    while (!(status = process.poll())) {
      if (std::chrono::steady_clock::now() > deadline) {
        result.timed_out = true;
        process.signal_group(SIGKILL);  // the destructor reaps it
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (status && !status->signaled) result.exit_code = status->code;
    if (status && status->signaled) result.err = status->describe();
  } catch (const LaunchError& e) {
    result.err = e.what();
    return result;
  }
  result.out = slurp(spec.stdout_path);
  if (result.err.empty()) result.err = slurp(spec.stderr_path);
  return result;
}

}  // namespace hpo
