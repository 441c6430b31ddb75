// Optuna's RDB tables on PostgreSQL, created as SQLAlchemy creates them for
// Optuna (ENUM types, SERIAL ids), so that Optuna and hpo share a database.
// New databases get alembic revision v3.2.0.a (Optuna >= 3.2, with the
// index on trials.study_id); databases Optuna 3.1 made (v3.0.0.d) are used
// at their revision until upgraded, which Optuna 3.1 could then not open.
#ifndef HPO_STORAGE_PG_SCHEMA_H_
#define HPO_STORAGE_PG_SCHEMA_H_

#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace hpo {

// The CREATE statements of a new database at `revision`, in creation order.
std::vector<std::string> pg_schema_ddl(const std::string& revision);

// Within the caller's transaction: creates the schema at `new_revision` in a
// database without tables (if `create`; else that is an error), or checks that an existing one is
// Optuna's at a revision hpo reads and writes. Concurrent callers on a new database create it
// once. Throws StorageError (without the URL; the caller adds it), changing nothing.
void ensure_pg_schema(pqxx::work& tx, bool create, const std::string& new_revision);

// alembic_version.version_num.
std::string pg_schema_revision(pqxx::work& tx);

// Upgrades to kNewestRevision as Optuna's alembic migrations do (the
// statements of optuna_revision.h), then the version rows. False if already
// current.
bool upgrade_pg_schema(pqxx::work& tx);

}  // namespace hpo

#endif  // HPO_STORAGE_PG_SCHEMA_H_
