// The tables of Optuna 3.1's RDB storage (schema version 12, alembic
// revision v3.0.0.d), created exactly as Optuna creates them so that either
// program can open a study database the other made.
#ifndef HPO_STORAGE_OPTUNA_SCHEMA_H_
#define HPO_STORAGE_OPTUNA_SCHEMA_H_

#include <string>
#include <vector>

namespace hpo {

class SqliteDb;

constexpr int kOptunaSchemaVersion = 12;
constexpr const char* kOptunaLibraryVersion = "3.1.0";
constexpr const char* kOptunaAlembicRevision = "v3.0.0.d";

// The CREATE statements in creation order, with Optuna's own whitespace so
// that `sqlite3 FILE .schema` prints the same text for both.
std::vector<std::string> optuna_schema_ddl();

// Within the caller's write transaction: creates the schema and its version
// rows in an empty database, or checks the versions of an existing one.
// Throws StorageError (without the database name; the caller adds it) for a
// database of another version or not made by Optuna, changing nothing.
// SQLite failures, e.g. a file that is not a database, throw SqliteError.
void ensure_optuna_schema(SqliteDb& db);

}  // namespace hpo

#endif  // HPO_STORAGE_OPTUNA_SCHEMA_H_
