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

// The last stop signal received (SIGINT, SIGTERM or SIGHUP), or 0.
int last_stop_signal();

}  // namespace hpo

#endif  // HPO_CLI_SIGNALS_H_
