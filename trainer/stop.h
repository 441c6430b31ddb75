// Graceful stop on SIGTERM: the handler only sets a flag; the training loop
// polls it after each optimizer step, writes a checkpoint and exits with
// kExitStopped (75).
#ifndef HPO_TRAINER_STOP_H_
#define HPO_TRAINER_STOP_H_

namespace hpo::trainer {

void install_stop_handler();  // SIGTERM (and SIGINT) -> request_stop()
void request_stop();
void clear_stop();
bool stop_requested();

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_STOP_H_
