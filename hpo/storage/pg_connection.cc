#include "hpo/storage/pg_connection.h"

#include "hpo/storage/backoff.h"
#include "hpo/storage/pg_client_env.h"
#include "hpo/storage/storage.h"
#include "hpo/storage/trial_not_running.h"

namespace hpo {

namespace {

// Reconnecting waits up to 2 s between tries: a server that restarts (a
// failover, a crash) is back within the ~15 s the attempts span.
constexpr int kBackoffCapMs = 2000;

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

std::unique_ptr<pqxx::connection> connect(const std::string& conninfo) {
  ignore_client_time_zone();
  return std::make_unique<pqxx::connection>(conninfo);
}

// libpq's messages end in a newline; messages here end without one.
std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

PgConnection::PgConnection(PgUrl url) : url_(std::move(url)) {
  try {
    conn_ = connect(url_.conninfo);
  } catch (const std::exception& e) {
    fail("cannot connect", e.what());
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
  } else if (dynamic_cast<const pqxx::transaction_rollback*>(&e)) {
    retry = true;  // serialization failure, deadlock: nothing was written
  }
  if (!retry) fail(what, e.what());
  if (attempt.number >= kMaxAttempts) {
    fail(what,
         trimmed(e.what()) + " (gave up after " + std::to_string(attempt.number) + " attempts)");
  }
  backoff(attempt.number, kBackoffCapMs);
}

void PgConnection::fail(const char* what, const std::string& why) const {
  throw StorageError(url_.masked + ": " + what + ": " + mask_password(url_, trimmed(why)));
}

}  // namespace hpo
