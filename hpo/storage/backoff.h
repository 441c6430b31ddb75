// The pause before retrying a transaction that collided with another
// process (a lock, a serialization failure) or lost its connection.
#ifndef HPO_STORAGE_BACKOFF_H_
#define HPO_STORAGE_BACKOFF_H_

namespace hpo {

// Sleeps a random time that grows with `attempt` (1, 2, ...) up to
// `cap_ms`, so that processes which collided do not collide again in lockstep.
void backoff(int attempt, int cap_ms = 1000);

}  // namespace hpo

#endif  // HPO_STORAGE_BACKOFF_H_
