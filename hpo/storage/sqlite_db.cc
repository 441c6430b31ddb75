#include "hpo/storage/sqlite_db.h"

#include <sqlite3.h>

namespace hpo {

namespace {

[[noreturn]] void fail(sqlite3* db, int rc) {
  throw SqliteError(rc, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

}  // namespace

bool SqliteError::is_contention() const {
  const int primary = code_ & 0xff;  // extended codes keep the primary one in the low byte
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

SqliteDb::SqliteDb(const std::string& path)
    : SqliteDb(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) {}

SqliteDb::SqliteDb(const ReadOnlyUri& read_only)
    : SqliteDb(read_only.uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI) {}

SqliteDb::SqliteDb(const std::string& name, int flags) {
  const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);  // a failed open still allocates a handle
    db_ = nullptr;
    throw SqliteError(rc, message);
  }
}

SqliteDb::~SqliteDb() {
  for (auto& [sql, c] : cache_) sqlite3_finalize(c.stmt);
  sqlite3_close(db_);
}

sqlite3_stmt* SqliteDb::acquire(const std::string& sql, Cached** slot) {
  const auto it = cache_.find(sql);
  if (it != cache_.end() && !it->second.in_use) {
    it->second.in_use = true;
    *slot = &it->second;  // element references survive rehashing
    return it->second.stmt;
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()) + 1,
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) fail(db_, rc);
  *slot = nullptr;
  if (it == cache_.end() && cache_.size() < kMaxCached) *slot = &(cache_[sql] = Cached{stmt, true});
  return stmt;
}

void SqliteDb::release(Cached* slot) {
  // Reset, so that it holds no read snapshot open, and forget its bindings.
  sqlite3_reset(slot->stmt);
  sqlite3_clear_bindings(slot->stmt);
  slot->in_use = false;
}

void SqliteDb::set_busy_timeout(int milliseconds) { sqlite3_busy_timeout(db_, milliseconds); }

void SqliteDb::exec(const char* sql) {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(db_, rc);
}

int64_t SqliteDb::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int SqliteDb::changes() const { return sqlite3_changes(db_); }

Statement::Statement(SqliteDb& db, const std::string& sql) : db_(db) {
  stmt_ = db.acquire(sql, &slot_);
}

Statement::~Statement() {
  if (slot_)
    SqliteDb::release(slot_);
  else
    sqlite3_finalize(stmt_);
}

void Statement::check_bind(int rc) {
  if (rc != SQLITE_OK) fail(db_.handle(), rc);
}

Statement& Statement::bind(int index, int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::bind(int index, double value) {
  check_bind(sqlite3_bind_double(stmt_, index, value));
  return *this;
}

Statement& Statement::bind(int index, const std::string& value) {
  check_bind(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                               SQLITE_TRANSIENT));
  return *this;
}

Statement& Statement::bind(int index, std::nullptr_t) {
  check_bind(sqlite3_bind_null(stmt_, index));
  return *this;
}

Statement& Statement::bind(int index, const std::optional<double>& value) {
  return value ? bind(index, *value) : bind(index, nullptr);
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_.handle(), rc);
}

void Statement::run() {
  while (step()) {
  }
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::optional<double> Statement::optional_real(int column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

std::string Statement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (p == nullptr) return {};
  return std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

Transaction::Transaction(SqliteDb& db, Kind kind) : db_(db) {
  Statement(db_, kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN").run();
  open_ = true;
}

Transaction::~Transaction() {
  // Errors are ignored here: a failed statement may already have rolled the
  // transaction back, and a destructor must not throw.
  if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  Statement(db_, "COMMIT").run();
  open_ = false;
}

}  // namespace hpo
