#include "hpo/cli/signals.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include "hpo/cli/exit_codes.h"

namespace hpo {

namespace {

StopFlag* g_flag = nullptr;
volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_output_lost = 0;  // the stop was for output that cannot be written
int g_lost_errno = 0;

void on_stop_signal(int sig) {
  const int saved_errno = errno;  // the write below may fail (EPIPE), under code that reads errno
  // A stop for lost output was no signal: the first real one is still a
  // graceful stop (trainers keep their grace period), not an escalation.
  const bool after_lost_output =
      g_output_lost && g_signal == 0 && g_flag->load() == kStopGracefully;
  g_signal = sig;
  const int level = after_lost_output ? kStopGracefully : g_flag->load() + 1;
  g_flag->store(level);
  // Only async-signal-safe calls here: write(2) of fixed text.
  const char* text = level == kStopGracefully
                         ? "\nhpo: stopping: no new trials; running trainers get SIGTERM and their "
                           "grace period (signal again to kill them now)\n"
                         : "\nhpo: killing running trainers now\n";
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
  errno = saved_errno;
}

// A write to a reader that is gone then fails with EPIPE instead of ending
// hpo. A handler, not SIG_IGN, which a trainer would inherit across exec.
void on_broken_pipe(int) {}

// Handles `sig` with `sa`, unless hpo was started with it ignored: `nohup`
// ignores SIGHUP, a shell's background job SIGINT, and the user meant it.
void handle_unless_ignored(int sig, const struct sigaction& sa) {
  struct sigaction old;
  if (::sigaction(sig, nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
      old.sa_handler == SIG_IGN)
    return;
  ::sigaction(sig, &sa, nullptr);
}

}  // namespace

void install_stop_handlers(StopFlag& flag) {
  g_flag = &flag;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  handle_unless_ignored(SIGINT, sa);
  ::sigaction(SIGTERM, &sa, nullptr);
  handle_unless_ignored(SIGHUP, sa);
  // `hpo run | tee log` and Ctrl-C: tee dies with hpo's group, and the
  // "stopping" line would meet a broken pipe, whose SIGPIPE ended hpo
  // before it stopped its trainers. Output that cannot be written is lost;
  // the graceful stop is not.
  sa.sa_handler = on_broken_pipe;
  ::sigaction(SIGPIPE, &sa, nullptr);
}

void stop_for_lost_output(int err) {
  if (!g_flag) return;
  // Marked before the flag is raised: a Ctrl-C in between must find the
  // stop already its own, or it would escalate to killing the trainers.
  g_lost_errno = err;
  g_output_lost = 1;
  int expected = kKeepRunning;
  if (!g_flag->compare_exchange_strong(expected, kStopGracefully)) {
    g_output_lost = 0;  // a signal stopped the run first: the stop is its
    return;
  }
  // errno 0: the stream failed without a system call's error to say why.
  const std::string why = err == EPIPE ? "its reader is gone (broken pipe)"
                          : err != 0   ? std::strerror(err)
                                       : "a write failed, for no reason given";
  std::cerr << "\nhpo: stopping: standard output cannot be written: " << why
            << ". No new trials; running trainers get SIGTERM and their grace period, and "
               "the next `hpo run` resumes them\n"
            << std::flush;
}

int last_stop_signal() { return g_signal; }

int lost_output_exit_code() {
  if (!g_output_lost || g_signal != 0) return 0;
  // A broken pipe ends as SIGPIPE would have ended hpo; any other failure
  // (a full disk under `> log`) is not a signal, and says so.
  return g_lost_errno == EPIPE ? 128 + SIGPIPE : kExitOutputLost;
}

}  // namespace hpo
