// Ctrl-C, SIGTERM and SIGHUP during `hpo run`: the first asks for a graceful
// stop, a second for an immediate one.
#ifndef HPO_CLI_SIGNALS_H_
#define HPO_CLI_SIGNALS_H_

#include "hpo/run/stop_flag.h"

namespace hpo {

// Installs SIGINT, SIGTERM and SIGHUP (the terminal closed) handlers that
// raise `flag` one level per signal, and one that keeps a broken pipe from
// ending hpo. The flag must outlive the handlers (use a static).
void install_stop_handlers(StopFlag& flag);

// hpo's output cannot be written (`err` is the write's errno): the reader
// of `hpo run | head` is gone. Unless a stop is already under way, stops
// gracefully as Ctrl-C does, and last_stop_signal() then says SIGPIPE, the
// signal a broken pipe would have ended hpo with.
void stop_for_lost_output(int err);

// The last stop signal received (SIGINT, SIGTERM or SIGHUP; SIGPIPE for
// lost output), or 0.
int last_stop_signal();

}  // namespace hpo

#endif  // HPO_CLI_SIGNALS_H_
