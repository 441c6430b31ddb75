#include "trainer/stop.h"

#include <csignal>

namespace hpo::trainer {

namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int) { g_stop = 1; }

}  // namespace

void install_stop_handler() {
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

void request_stop() { g_stop = 1; }
void clear_stop() { g_stop = 0; }
bool stop_requested() { return g_stop != 0; }

}  // namespace hpo::trainer
