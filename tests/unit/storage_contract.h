// The Storage contract, checked on every backend: each contract test is a
// function template over a backend, registered twice, once on SQLite and
// once on PostgreSQL in the doctest suite "postgres".
//
// The PostgreSQL cases need a server: CTest's unit_postgres entry runs them
// through tests/integration/pg_server.py, which starts a private one and
// sets HPO_TEST_PG_URL, and sets HPO_TEST_PG_REQUIRED so that a missing
// URL fails there. Elsewhere (the plain and sanitizer unit runs) they
// return at once without connecting.
#ifndef HPO_TESTS_UNIT_STORAGE_CONTRACT_H_
#define HPO_TESTS_UNIT_STORAGE_CONTRACT_H_

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <string>

#include "hpo/storage/pg_storage.h"
#include "hpo/storage/sqlite_db.h"
#include "hpo/storage/sqlite_storage.h"
#include "tests/unit/temp_dir.h"

namespace hpo {

// A fresh SQLite database file per object.
class SqliteBackend {
 public:
  std::unique_ptr<Storage> open() const { return std::make_unique<SqliteStorage>(path()); }
  // Sets the trial's heartbeat (every heartbeat, without a trial) to
  // `seconds` ago on the database's clock.
  void age_heartbeats(std::optional<int64_t> trial_id, int seconds) const {
    SqliteDb db(path());
    Statement st(db, "UPDATE trial_heartbeats SET heartbeat = datetime('now', ?1)" +
                         std::string(trial_id ? " WHERE trial_id = ?2" : ""));
    st.bind(1, "-" + std::to_string(seconds) + " seconds");
    if (trial_id) st.bind(2, *trial_id);
    st.run();
  }

 private:
  std::string path() const { return dir_.path("study.db"); }
  TempDir dir_{"hpo_contract"};
};

// The URL of the test server's database, or nullopt when the PostgreSQL
// cases are to be skipped; fails the test where they are required.
inline std::optional<std::string> test_pg_url() {
  const char* url = std::getenv("HPO_TEST_PG_URL");
  if (url && *url) return std::string(url);
  if (std::getenv("HPO_TEST_PG_REQUIRED"))
    FAIL("HPO_TEST_PG_URL is not set; run through pg_server.py");
  return std::nullopt;
}

// `url` naming database `db` instead: postgresql://USER@HOST/DB?QUERY.
inline std::string with_database(const std::string& url, const std::string& db) {
  const size_t slash = url.find('/', url.find("://") + 3);
  const size_t query = url.find('?', slash);
  return url.substr(0, slash + 1) + db + (query == std::string::npos ? "" : url.substr(query));
}

// A fresh database on the test server per object, dropped afterwards.
class PgBackend {
 public:
  PgBackend() {
    static std::atomic<int> counter{0};
    name_ = "hpo_c" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    admin("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    admin("CREATE DATABASE " + name_);
  }
  ~PgBackend() {
    try {
      admin("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    } catch (const std::exception& e) {
      MESSAGE("cannot drop test database " << name_ << ": " << e.what());
    }
  }
  PgBackend(const PgBackend&) = delete;
  PgBackend& operator=(const PgBackend&) = delete;

  const std::string& name() const { return name_; }
  std::string url() const { return with_database(*test_pg_url(), name_); }
  std::unique_ptr<Storage> open() const { return std::make_unique<PgStorage>(url()); }
  void age_heartbeats(std::optional<int64_t> trial_id, int seconds) const {
    exec("UPDATE trial_heartbeats SET heartbeat = LOCALTIMESTAMP - interval '" +
         std::to_string(seconds) + " seconds'" +
         (trial_id ? " WHERE trial_id = " + std::to_string(*trial_id) : ""));
  }
  // Runs SQL on this database as the test server's user.
  void exec(const std::string& sql) const {
    pqxx::connection c(url());
    pqxx::nontransaction(c).exec0(sql);
  }

 private:
  static void admin(const std::string& sql) {
    pqxx::connection c(*test_pg_url());
    pqxx::nontransaction(c).exec0(sql);
  }
  std::string name_;
};

}  // namespace hpo

// Defines contract test `func` and registers it on both backends.
#define STORAGE_CONTRACT(func, title)                              \
  template <typename Backend>                                      \
  void func();                                                     \
  TEST_CASE("sqlite: " title) { func<::hpo::SqliteBackend>(); }    \
  TEST_CASE("postgres: " title* doctest::test_suite("postgres")) { \
    if (::hpo::test_pg_url()) func<::hpo::PgBackend>();            \
  }                                                                \
  template <typename Backend>                                      \
  void func()

#endif  // HPO_TESTS_UNIT_STORAGE_CONTRACT_H_
