#include "hpo/cli/signals.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace hpo {

namespace {

StopFlag* g_flag = nullptr;
volatile sig_atomic_t g_signal = 0;

void on_stop_signal(int sig) {
  g_signal = sig;
  const int level = g_flag->load() + 1;
  g_flag->store(level);
  // Only async-signal-safe calls here: write(2) of fixed text.
  const char* text = level == kStopGracefully
                         ? "\nhpo: stopping: no new trials; running trainers get SIGTERM and their "
                           "grace period (signal again to kill them now)\n"
                         : "\nhpo: killing running trainers now\n";
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

// A write to a reader that is gone then fails with EPIPE instead of ending
// hpo. A handler, not SIG_IGN, which a trainer would inherit across exec.
void on_broken_pipe(int) {}

}  // namespace

void install_stop_handlers(StopFlag& flag) {
  g_flag = &flag;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGHUP, &sa, nullptr);
  // `hpo run | tee log` and Ctrl-C: tee dies with hpo's group, and the
  // "stopping" line would meet a broken pipe, whose SIGPIPE ended hpo
  // before it stopped its trainers. Output that cannot be written is lost;
  // the graceful stop is not.
  sa.sa_handler = on_broken_pipe;
  ::sigaction(SIGPIPE, &sa, nullptr);
}

int last_stop_signal() { return g_signal; }

}  // namespace hpo
