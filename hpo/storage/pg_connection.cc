#include "hpo/storage/pg_connection.h"

#include <algorithm>
#include <cstdio>

#include "hpo/storage/backoff.h"
#include "hpo/storage/pg_client_env.h"
#include "hpo/storage/pg_session_bounds.h"
#include "hpo/storage/retry_budget.h"
#include "hpo/storage/storage.h"
#include "hpo/storage/trial_not_running.h"
#include "hpo/text/ascii.h"

namespace hpo {

namespace {

// Tries are at most 2 s apart, so a server that is back is found soon.
constexpr int kBackoffCapMs = 2000;

// Whether a failed connection attempt met a server that is there but cannot
// take this connection yet: it is full (SQLSTATE 53300) or starting or
// stopping (57P03), as in a failover. libpq reports no SQLSTATE for a failed
// connection, only the server's message: these are its English texts (the
// server sends them before it knows the client's language).
bool server_busy(const std::string& message) {
  for (const char* text :
       {"too many clients already", "remaining connection slots are reserved",
        "too many connections for", "the database system is starting up",
        "the database system is shutting down", "the database system is in recovery mode"}) {
    if (message.find(text) != std::string::npos) return true;
  }
  return false;
}

// Whether the server or the network ended the session: SQLSTATE class 08
// (connection exception) or 57P01..57P03 (terminated by an administrator,
// crash shutdown, cannot connect now).
bool session_lost(const std::exception& e) {
  if (dynamic_cast<const pqxx::broken_connection*>(&e)) return true;
  if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) {
    const std::string state = sql->sqlstate();
    return state.compare(0, 2, "08") == 0 || state.compare(0, 4, "57P0") == 0;
  }
  return false;
}

// A lock wait cut short by lock_timeout (SQLSTATE 55P03): nothing was
// written, and the lock's holder is bounded too, so a later try gets it.
bool lock_timed_out(const std::exception& e) {
  const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e);
  return sql && sql->sqlstate() == "55P03";
}

std::unique_ptr<pqxx::connection> connect(const std::string& conninfo) {
  ignore_client_time_zone();
  auto conn = std::make_unique<pqxx::connection>(with_tcp_bounds(conninfo));
  bound_session(*conn);
  return conn;
}

// libpq's messages end in a newline; messages here end without one.
}  // namespace

PgConnection::PgConnection(PgUrl url) : url_(std::move(url)), budget_(retry_budget()) {
  for (PgAttempt attempt;; ++attempt.number) {
    try {
      conn_ = connect(url_.conninfo);
      return;
    } catch (const std::exception& e) {
      if (!server_busy(e.what())) fail("cannot connect", e.what());
      pause_or_fail("cannot connect", e.what(), attempt);
    }
  }
}

PgConnection::~PgConnection() = default;

pqxx::connection& PgConnection::connection() {
  if (!conn_ || !conn_->is_open()) {
    conn_.reset();
    conn_ = connect(url_.conninfo);
  }
  return *conn_;
}

void PgConnection::on_failure(const char* what, const std::exception& e, PgAttempt& attempt) {
  // A write refused is an answer, not a failure: the caller acts on it.
  if (const auto* lost = dynamic_cast<const OwnershipLost*>(&e)) throw *lost;
  if (const auto* ended = dynamic_cast<const TrialNotRunning*>(&e)) throw *ended;
  bool retry = false;
  if (dynamic_cast<const pqxx::in_doubt_error*>(&e)) {
    attempt.maybe_committed = true;
    conn_.reset();
    retry = true;
  } else if (session_lost(e) || (conn_ && !conn_->is_open())) {
    conn_.reset();
    retry = true;
  } else if (dynamic_cast<const pqxx::transaction_rollback*>(&e) || lock_timed_out(e)) {
    retry = true;  // serialization failure, deadlock, lock timeout: nothing was written
  }
  if (!retry) fail(what, e.what());
  pause_or_fail(what, e.what(), attempt);
}

void PgConnection::pause_or_fail(const char* what, const std::string& why,
                                 PgAttempt& attempt) const {
  using std::chrono::duration_cast;
  const auto spent = std::chrono::steady_clock::now() - attempt.first;
  if (spent >= budget_) {
    const auto seconds = duration_cast<std::chrono::milliseconds>(spent).count() / 1000.0;
    char span[32];
    std::snprintf(span, sizeof span, "%.1f", seconds);
    fail(what, trim_blanks(why) + " (gave up after " + std::to_string(attempt.number) +
                   " attempts in " + span + " s; HPO_DB_RETRY_SECONDS=" +
                   std::to_string(duration_cast<std::chrono::seconds>(budget_).count()) + ")");
  }
  const auto left = duration_cast<std::chrono::milliseconds>(budget_ - spent).count();
  backoff(attempt.number, static_cast<int>(std::min<long long>(kBackoffCapMs, left + 1)));
}

void PgConnection::fail(const char* what, const std::string& why) const {
  throw StorageError(url_.masked + ": " + what + ": " + mask_password(url_, trim_blanks(why)));
}

}  // namespace hpo
