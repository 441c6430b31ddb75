// Opens a study database from a URL in SQLAlchemy's form, as Optuna takes it.
#ifndef HPO_STORAGE_OPEN_STORAGE_H_
#define HPO_STORAGE_OPEN_STORAGE_H_

#include <memory>
#include <optional>
#include <string>

#include "hpo/storage/optuna_revision.h"
#include "hpo/storage/storage.h"

namespace hpo {

// Whether opening may create the database. Commands that only read (status,
// best, export, studies) must not leave an empty database behind a typo.
// kReadOnly: it must exist, and reading it is enough (a SQLite file that
// cannot be written, another user's, is opened read-only).
enum class OpenMode { kCreateIfMissing, kMustExist, kReadOnly };

// "sqlite:///relative/path.db" or "sqlite:////absolute/path.db"; with
// kCreateIfMissing, the database file and its directory are created if
// missing. "postgresql://USER:PASSWORD@HOST:PORT/DB" (or postgresql+DRIVER://,
// or postgresql://USER@/DB?host=/socket/dir): the database must exist; with
// kCreateIfMissing, Optuna's tables are created in it if it has none.
// Throws StorageError for other URLs, for a missing database with
// kMustExist, and for databases that cannot be opened; PostgreSQL passwords
// are masked as *** in every message.
// A database created here gets Optuna's schema at `new_revision`
// (optuna_revision.h); an existing one is used at its own.
std::unique_ptr<Storage> open_storage(const std::string& url,
                                      OpenMode mode = OpenMode::kCreateIfMissing,
                                      const std::string& new_revision = kNewestRevision);

// Throws StorageError, the URL masked, when open_storage would refuse `url`
// by its form alone (before connecting to anything): for `hpo slurm`, whose
// workers open it later, elsewhere.
void check_storage_url(const std::string& url);

// The database file a "sqlite:///PATH" URL names (relative "x.db" or
// absolute "/x.db", as SQLAlchemy reads it); nullopt for any other URL.
std::optional<std::string> sqlite_path(const std::string& url);

// `url` as messages may show it: a PostgreSQL URL as parse_pg_url masks it,
// any other (refused, malformed) through masked_url; SQLite URLs as given.
std::string shown_url(const std::string& url);

}  // namespace hpo

#endif  // HPO_STORAGE_OPEN_STORAGE_H_
