// A thin RAII layer over SQLite's C API: a connection, prepared statements
// with bound parameters, and a transaction that rolls back unless committed.
// Errors carry SQLite's result code so callers can tell contention
// (SQLITE_BUSY, SQLITE_LOCKED) from real failures.
#ifndef HPO_STORAGE_SQLITE_DB_H_
#define HPO_STORAGE_SQLITE_DB_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

struct sqlite3;
struct sqlite3_stmt;

namespace hpo {

class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }
  // SQLITE_BUSY or SQLITE_LOCKED: another connection holds the lock.
  bool is_contention() const;

 private:
  int code_;
};

class SqliteDb {
 public:
  // Opens (creating if absent) the database file; throws SqliteError.
  explicit SqliteDb(const std::string& path);
  // Opens a "file:" URI read-only (see sqlite_read_only.h).
  struct ReadOnlyUri {
    std::string uri;
  };
  explicit SqliteDb(const ReadOnlyUri& read_only);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  sqlite3* handle() const { return db_; }
  // How long a statement waits for another connection's lock before
  // failing with SQLITE_BUSY.
  void set_busy_timeout(int milliseconds);
  // Runs SQL that binds nothing and returns no rows we need.
  void exec(const char* sql);
  int64_t last_insert_rowid() const;
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int changes() const;

 private:
  SqliteDb(const std::string& name, int flags);  // sqlite3_open_v2's
  friend class Statement;
  // Prepared statements are kept for reuse, keyed by their SQL: hpo runs
  // the same few dozen statements for every trial, and parsing them anew
  // each time cost as much as running them. A statement in use is not
  // handed out twice; the caller then gets a fresh, uncached one.
  struct Cached {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };
  static constexpr size_t kMaxCached = 128;
  // A prepared statement for `sql`. *slot is its cache entry, now marked
  // in use, or null for an uncached one, which the caller finalizes.
  sqlite3_stmt* acquire(const std::string& sql, Cached** slot);
  static void release(Cached* slot);

  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, Cached> cache_;
};

// A prepared statement. Parameters are 1-based, as in sqlite3_bind_*;
// columns are 0-based, as in sqlite3_column_*. Cheap to make again: the
// connection keeps the compiled statement.
class Statement {
 public:
  Statement(SqliteDb& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, const char* value) { return bind(index, std::string(value)); }
  Statement& bind(int index, std::nullptr_t);
  Statement& bind(int index, const std::optional<double>& value);

  // Advances to the next row; false when done. Throws SqliteError.
  bool step();
  // Steps a statement that returns no rows.
  void run();

  bool is_null(int column) const;
  int64_t int64(int column) const;
  double real(int column) const;
  std::optional<double> optional_real(int column) const;  // nullopt for NULL
  std::string text(int column) const;  // "" for NULL

 private:
  void check_bind(int rc);

  SqliteDb& db_;
  SqliteDb::Cached* slot_ = nullptr;  // see SqliteDb::acquire; set with stmt_
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN on construction, ROLLBACK on destruction unless commit() ran, so an
// exception never leaves a transaction open. Writers use BEGIN IMMEDIATE:
// they take the write lock up front, so two writers never deadlock trying
// to upgrade a shared lock.
class Transaction {
 public:
  enum class Kind { kRead, kWrite };
  Transaction(SqliteDb& db, Kind kind);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  SqliteDb& db_;
  bool open_ = false;
};

}  // namespace hpo

#endif  // HPO_STORAGE_SQLITE_DB_H_
