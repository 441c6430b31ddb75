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
// of `hpo run | head` is gone, or `> log`'s disk is full. Unless a stop is
// already under way, stops gracefully as Ctrl-C does. It is no signal: a
// Ctrl-C after it is still the first, with the trainers' grace period.
void stop_for_lost_output(int err);

// The last stop signal received (SIGINT, SIGTERM or SIGHUP), or 0.
int last_stop_signal();

// When the run stopped for lost output and no signal came after: 141 for a
// broken pipe (as SIGPIPE would have ended hpo), kExitOutputLost for any
// other write error. Otherwise 0.
int lost_output_exit_code();

}  // namespace hpo

#endif  // HPO_CLI_SIGNALS_H_
