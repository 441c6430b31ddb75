// The tables of Optuna's RDB storage in SQLite (schema version 12, alembic
// revision v3.2.0.a for new databases), created exactly as Optuna 3.2-5.0
// create them so that either program can open a study database the other
// made. Databases at v3.0.0.d (Optuna 3.0-3.1) are read and written as they
// are, and upgraded only when asked.
#ifndef HPO_STORAGE_OPTUNA_SCHEMA_H_
#define HPO_STORAGE_OPTUNA_SCHEMA_H_

#include <string>
#include <vector>

namespace hpo {

class SqliteDb;

// The CREATE statements of `revision` (v3.2.0.a or v3.0.0.d) in creation
// order, with Optuna's own whitespace so that `sqlite3 FILE .schema` prints
// the same text for both.
std::vector<std::string> optuna_schema_ddl(const std::string& revision);

// Within the caller's write transaction: creates the schema at
// `new_revision` and its version rows in an empty database, or checks the
// versions of an existing one (whatever its supported revision).
// Throws StorageError (without the database name; the caller adds it) for a
// database of an unsupported version or not made by Optuna, changing nothing.
// SQLite failures, e.g. a file that is not a database, throw SqliteError.
void ensure_optuna_schema(SqliteDb& db, const std::string& new_revision);

// Only the checks, for a database opened read-only: an empty one is refused
// as not a study database.
void check_optuna_schema(SqliteDb& db);

// The alembic revision of a database that ensure_optuna_schema accepted.
std::string optuna_schema_revision(SqliteDb& db);

// Within the caller's write transaction: upgrades an accepted database to
// the newest revision. Returns false, changing nothing, if it is already there.
bool upgrade_optuna_schema(SqliteDb& db);

}  // namespace hpo

#endif  // HPO_STORAGE_OPTUNA_SCHEMA_H_
