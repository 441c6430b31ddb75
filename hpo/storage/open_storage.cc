#include "hpo/storage/open_storage.h"

#include <filesystem>
#include <system_error>

#include "hpo/storage/pg_storage.h"
#include "hpo/storage/pg_url.h"
#include "hpo/storage/sqlite_storage.h"
#include "hpo/storage/url_mask.h"

namespace hpo {

namespace {

constexpr const char kSqlitePrefix[] = "sqlite:///";

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

void create_parent_directory(const std::string& url, const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) {
    throw StorageError(url + ": cannot create directory " + parent.string() + ": " + ec.message());
  }
}

}  // namespace

std::string shown_url(const std::string& url) {
  if (sqlite_path(url)) return url;
  if (is_pg_url(url)) {
    try {
      return parse_pg_url(url).masked;
    } catch (const StorageError&) {
      // Malformed: masked_url hides all that may be a password.
    }
  }
  return masked_url(url);
}

std::optional<std::string> sqlite_path(const std::string& url) {
  if (!starts_with(url, kSqlitePrefix)) return std::nullopt;
  return url.substr(sizeof kSqlitePrefix - 1);
}

namespace {

[[noreturn]] void refuse_unsupported(const std::string& url) {
  throw StorageError("unsupported storage URL '" + masked_url(url) +
                     "'; expected sqlite:///relative/path.db, sqlite:////absolute/path.db or "
                     "postgresql://USER:PASSWORD@HOST:PORT/DATABASE");
}

}  // namespace

void check_storage_url(const std::string& url) {
  if (const auto sqlite = sqlite_path(url)) {
    if (sqlite->empty()) throw StorageError(url + ": no database file named; use sqlite:///FILE");
    // Neither would be what it says: a file named "x.db?mode=ro", a file
    // named ":memory:" (and a study in memory would be gone at exit).
    if (sqlite->find('?') != std::string::npos)
      throw StorageError(url + ": hpo takes no SQLite URL options (?...); name the file alone");
    if (*sqlite == ":memory:")
      throw StorageError(url + ": a study in memory would be lost when hpo exits; name a file");
    return;
  }
  if (!is_pg_url(url)) refuse_unsupported(url);
  parse_pg_url(url);
}

std::unique_ptr<Storage> open_storage(const std::string& url, OpenMode mode,
                                      const std::string& new_revision) {
  check_storage_url(url);
  if (const auto sqlite = sqlite_path(url)) {
    const std::string& path = *sqlite;
    if (path.empty()) throw StorageError(url + ": no database file named; use sqlite:///FILE");
    if (mode != OpenMode::kCreateIfMissing) {
      std::error_code ec;
      if (!std::filesystem::exists(path, ec)) {
        throw StorageError(
            url + ": no database file " + path +
            " (hpo run creates it; check --storage, $HPO_STORAGE and the study file's storage)");
      }
    } else {
      create_parent_directory(url, path);
    }
    return std::make_unique<SqliteStorage>(path, std::chrono::seconds(10), new_revision,
                                           mode == OpenMode::kReadOnly
                                               ? SqliteStorage::Access::kReadOnlyIfNeeded
                                               : SqliteStorage::Access::kReadWrite);
  }
  if (is_pg_url(url))
    return std::make_unique<PgStorage>(url, mode == OpenMode::kCreateIfMissing, new_revision);
  refuse_unsupported(url);
}

}  // namespace hpo
