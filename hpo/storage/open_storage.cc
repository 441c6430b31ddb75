#include "hpo/storage/open_storage.h"

#include <filesystem>
#include <system_error>

#include "hpo/storage/pg_storage.h"
#include "hpo/storage/pg_url.h"
#include "hpo/storage/sqlite_storage.h"

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
  if (!is_pg_url(url)) return url;
  try {
    return parse_pg_url(url).masked;
  } catch (const StorageError&) {
    return "(a malformed postgresql URL)";  // cannot tell where its password is
  }
}

std::optional<std::string> sqlite_path(const std::string& url) {
  if (!starts_with(url, kSqlitePrefix)) return std::nullopt;
  return url.substr(sizeof kSqlitePrefix - 1);
}

std::unique_ptr<Storage> open_storage(const std::string& url, OpenMode mode) {
  if (const auto sqlite = sqlite_path(url)) {
    const std::string& path = *sqlite;
    if (path.empty()) throw StorageError(url + ": no database file named; use sqlite:///FILE");
    if (mode == OpenMode::kMustExist) {
      std::error_code ec;
      if (!std::filesystem::exists(path, ec)) {
        throw StorageError(url + ": no database file " + path +
                           " (hpo run creates it; check --storage or the study's storage)");
      }
    } else {
      create_parent_directory(url, path);
    }
    return std::make_unique<SqliteStorage>(path);
  }
  if (is_pg_url(url)) return std::make_unique<PgStorage>(url, mode == OpenMode::kCreateIfMissing);
  throw StorageError("unsupported storage URL '" + url +
                     "'; expected sqlite:///relative/path.db, sqlite:////absolute/path.db or "
                     "postgresql://USER:PASSWORD@HOST:PORT/DATABASE");
}

}  // namespace hpo
