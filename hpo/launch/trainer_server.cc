#include "hpo/launch/trainer_server.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace hpo {

namespace {

// The environment a trainer gets, later entries winning, without the
// variables that name the trial.
std::map<std::string, std::string> process_env(const LaunchSpec& spec) {
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : spec.env)
    if (!is_trial_variable(name)) env[name] = value;
  return env;
}

LaunchSpec server_spec(const LaunchSpec& trial, const std::string& log_path) {
  LaunchSpec spec = trial;
  spec.env.emplace_back("HPO_SERVE", "1");
  spec.stdout_path.clear();
  spec.stderr_path = log_path;
  spec.pipes = true;
  return spec;
}

// Writes all of `text` to a pipe. A server that has died leaves a broken
// pipe, whose SIGPIPE would end a program without hpo run's handler for it
// (signals.h; the launcher's tests, say): it is blocked here, and one raised
// by this write is taken before the mask is put back.
bool write_all(int fd, const std::string& text) {
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  size_t done = 0;
  bool broken = false;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      broken = true;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (broken && errno == EPIPE) {
    const timespec now{0, 0};
    sigtimedwait(&pipe_only, nullptr, &now);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return !broken;
}

}  // namespace

bool keeps_serving(int code) { return code == 0 || code == 2 || code == 3 || code == 75; }

bool is_trial_variable(const std::string& name) {
  for (const char* trial : {"HPO_CONFIG", "HPO_REPORT_FILE", "HPO_TRIAL_DIR", "HPO_TRIAL_NUMBER",
                            "HPO_TRIAL_ID", "HPO_RESUME"})
    if (name == trial) return true;
  return false;
}

TrainerServer::TrainerServer(const LaunchSpec& trial, const std::string& log_path)
    : program_(trial.argv.empty() ? "" : trial.argv[0]),
      env_(process_env(trial)),
      process_(server_spec(trial, log_path)) {
  // read_replies() reads until the pipe is empty, never waiting.
  ::fcntl(process_.reply_fd(), F_SETFL, ::fcntl(process_.reply_fd(), F_GETFL) | O_NONBLOCK);
}

TrainerServer::~TrainerServer() {
  process_.close_requests();
  // A waiting server exits at the end of its stdin; one busy with a trial
  // (hpo leaving on an error) is killed by ~Process after this second.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!process_.poll() && std::chrono::steady_clock::now() < until)
    process_.wait_for(std::chrono::milliseconds(20));
}

bool TrainerServer::fits(const LaunchSpec& trial) {
  if (gone_ || in_trial_ || process_.poll()) return false;
  return !trial.argv.empty() && trial.argv[0] == program_ && process_env(trial) == env_;
}

void TrainerServer::start(const LaunchSpec& trial) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [name, value] : trial.env) env[name] = value;  // later entries win
  const nlohmann::json request = {{"argv", trial.argv},
                                  {"env", env},
                                  {"stdout", trial.stdout_path},
                                  {"stderr", trial.stderr_path}};
  trial_end_.reset();
  term_again_.reset();
  sent_ = std::chrono::steady_clock::now();
  in_trial_ = true;
  replied_ = false;
  // A request the server cannot read is a trial it never ran: its end is the
  // server's, as poll() will find.
  if (!write_all(process_.request_fd(), request.dump() + "\n") && !process_.poll())
    throw LaunchError("cannot send the trial to the trainer serving its slot: " +
                      std::string(std::strerror(errno)));
}

bool TrainerServer::read_replies() {
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(process_.reply_fd(), buf, sizeof buf);
    if (n > 0) {
      pending_.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n == 0;  // 0: the end; -1 with EAGAIN: nothing more for now
  }
}

void TrainerServer::signal_group(int sig) {
  process_.signal_group(sig);
  const auto now = std::chrono::steady_clock::now();
  if (sig == SIGTERM && in_trial_ && now < sent_ + kUnsure) term_again_ = sent_ + kUnsure;
}

std::optional<ExitStatus> TrainerServer::poll() {
  if (trial_end_ || !in_trial_) return trial_end_;
  if (term_again_ && std::chrono::steady_clock::now() >= *term_again_) {
    term_again_.reset();
    process_.signal_group(SIGTERM);
  }
  if (!gone_) gone_ = read_replies();
  // Only a reply line ends the trial; anything else a trainer writes to its
  // first stdout is not the protocol's and is skipped.
  for (size_t nl; (nl = pending_.find('\n')) != std::string::npos;) {
    const std::string line = pending_.substr(0, nl);
    pending_.erase(0, nl + 1);
    const nlohmann::json reply = nlohmann::json::parse(line, nullptr, false);
    if (reply.is_object() && reply.contains("exit") && reply["exit"].is_number_integer()) {
      ExitStatus end;
      end.code = reply["exit"].get<int>();
      // After a crash the server replies and exits (the protocol's rule 4),
      // but may not have exited yet: the slot's next trial, sent now, would
      // land in a dying process and take its exit status as its own.
      if (!keeps_serving(end.code)) gone_ = true;
      trial_end_ = end;
      in_trial_ = false;
      replied_ = true;
      return trial_end_;
    }
  }
  if (!gone_) return std::nullopt;
  // No reply, and the server closed its end: it died with the trial (or
  // was killed); its exit status is the trial's.
  std::optional<ExitStatus> end = process_.wait_for(std::chrono::seconds(2));
  if (!end) {
    process_.signal_group(SIGKILL);
    end = process_.wait_for(std::chrono::seconds(2));
  }
  if (end) {
    trial_end_ = end;
    in_trial_ = false;
  }
  return trial_end_;
}

std::optional<ExitStatus> TrainerServer::wait_for(std::chrono::microseconds timeout) {
  if (trial_end_) return trial_end_;
  if (gone_)
    process_.wait_for(timeout);
  else
    wait_readable(process_.reply_fd(), timeout);
  return poll();
}

}  // namespace hpo
