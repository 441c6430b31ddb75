// Bounds on how long one PostgreSQL session can hold up others, or be held
// up itself. A worker paused or partitioned mid-transaction keeps its locks
// until the server ends its session; a client whose server or network went
// silent waits until TCP gives up. Without bounds, either lasts for hours.
//
// - idle_in_transaction_session_timeout: the server ends a session that
//   sits in a transaction without sending its next statement for
//   kIdleInTransaction, releasing its locks (the study row create_trial
//   locks). hpo's own transactions send their statements back to back.
// - lock_timeout: a statement waits for a lock at most kLockTimeout; the
//   transaction is then retried whole (PgConnection), within the budget.
// - TCP keepalives and tcp_user_timeout: a connection over TCP whose peer
//   stopped answering is dropped within about 30 s, and then reopened.
//
// Settings the URL or the server (ALTER ROLE/DATABASE ... SET) already
// give are kept: only a parameter left unset, or a timeout left at 0
// (off), gets hpo's value.
#ifndef HPO_STORAGE_PG_SESSION_BOUNDS_H_
#define HPO_STORAGE_PG_SESSION_BOUNDS_H_

#include <pqxx/pqxx>
#include <string>

namespace hpo {

inline constexpr const char kIdleInTransaction[] = "5s";
inline constexpr const char kLockTimeout[] = "5s";

// `conninfo` (a libpq URI) with keepalives and tcp_user_timeout added
// where it does not set them.
std::string with_tcp_bounds(const std::string& conninfo);

// Sets the session's timeouts above where they are off; one round trip.
void bound_session(pqxx::connection& conn);

}  // namespace hpo

#endif  // HPO_STORAGE_PG_SESSION_BOUNDS_H_
