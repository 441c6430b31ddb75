// One connection to a PostgreSQL server and the transactions run on it.
// A transaction is retried whole, after a pause, when the server could not
// serialize it (a deadlock, a serialization failure) or the connection was
// lost; a lost connection is opened again. Bounded by the retry budget
// (retry_budget.h): past it the failure is a StorageError naming the URL,
// its password masked. Connecting at start-up is retried within the same
// budget only when the server is there but cannot take the connection yet
// (too many clients, starting up, shutting down for a failover).
//
// Not safe across threads: the owner serializes calls (PgStorage holds a
// mutex), so a process uses one connection however many threads it runs.
#ifndef HPO_STORAGE_PG_CONNECTION_H_
#define HPO_STORAGE_PG_CONNECTION_H_

#include <chrono>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <type_traits>

#include "hpo/storage/pg_url.h"

namespace hpo {

// What a transaction body knows of the call it belongs to.
struct PgAttempt {
  int number = 1;  // 1 for the first try
  std::chrono::steady_clock::time_point first = std::chrono::steady_clock::now();
  // An earlier try of this call lost its connection while COMMIT was on the
  // wire, so it may have committed: the body must then look for its own
  // earlier write before writing again (see PgStorage's create and finish).
  bool maybe_committed = false;
};

class PgConnection {
 public:
  // Connects at once: a wrong password or host is reported now rather than
  // retried; a server that is full or starting up is waited for within the
  // budget. Throws StorageError (also for a bad HPO_DB_RETRY_SECONDS).
  explicit PgConnection(PgUrl url);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  const PgUrl& url() const { return url_; }

  // Runs body(pqxx::work&, const PgAttempt&) in one READ COMMITTED
  // transaction and commits it, retrying as described above; returns what
  // body returns. Any other failure throws StorageError "URL: what: why".
  template <typename Body>
  auto transact(const char* what, Body&& body);

 private:
  pqxx::connection& connection();  // opens it again if it was lost
  // Decides after a failed try: returns to retry (after a pause, with
  // attempt updated) or throws StorageError.
  void on_failure(const char* what, const std::exception& e, PgAttempt& attempt);
  [[noreturn]] void fail(const char* what, const std::string& why) const;
  // Pauses before the next try, or fails with `why` if the budget is spent.
  void pause_or_fail(const char* what, const std::string& why, PgAttempt& attempt) const;

  PgUrl url_;
  std::chrono::steady_clock::duration budget_;
  std::unique_ptr<pqxx::connection> conn_;
};

template <typename Body>
auto PgConnection::transact(const char* what, Body&& body) {
  for (PgAttempt attempt;; ++attempt.number) {
    try {
      pqxx::work tx(connection());
      if constexpr (std::is_void_v<decltype(body(tx, attempt))>) {
        body(tx, attempt);
        tx.commit();
        return;
      } else {
        auto result = body(tx, attempt);
        tx.commit();
        return result;
      }
    } catch (const std::exception& e) {
      on_failure(what, e, attempt);
    }
  }
}

}  // namespace hpo

#endif  // HPO_STORAGE_PG_CONNECTION_H_
