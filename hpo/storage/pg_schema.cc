#include "hpo/storage/pg_schema.h"

#include <algorithm>

#include "hpo/storage/optuna_revision.h"
#include "hpo/storage/storage.h"

namespace hpo {

namespace {

// Any constant: the transaction-scoped advisory lock that serializes
// processes creating the schema of one new database at once.
constexpr int64_t kSchemaLockKey = 0x6870'6f5f'7363'686d;  // "hpo_schm"

// study_user_attributes and its three siblings differ only in names.
std::string pg_attribute_table(const std::string& owner, const std::string& owners,
                               const std::string& kind) {
  const std::string id = owner + "_" + kind + "_attribute_id";
  const std::string owner_id = owner + "_id";
  return "CREATE TABLE " + owner + "_" + kind + "_attributes (" + id + " SERIAL NOT NULL, " +
         owner_id + " INTEGER, key VARCHAR(512), value_json TEXT, PRIMARY KEY (" + id +
         "), UNIQUE (" + owner_id + ", key), FOREIGN KEY(" + owner_id + ") REFERENCES " + owners +
         " (" + owner_id + "))";
}

bool table_exists(pqxx::work& tx, const char* name) {
  return !tx.exec_params1("SELECT to_regclass($1) IS NULL", name)[0].as<bool>();
}

bool has_tables(pqxx::work& tx) {
  return tx
      .exec1(
          "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema())")
          [0]
      .as<bool>();
}

void create_schema(pqxx::work& tx, const std::string& revision) {
  for (const auto& sql : pg_schema_ddl(revision)) tx.exec0(sql);
  tx.exec_params0(
      "INSERT INTO version_info (version_info_id, schema_version, library_version) VALUES (1, $1, "
      "$2)",
      kOptunaSchemaVersion, library_version_for(revision));
  tx.exec_params0("INSERT INTO alembic_version (version_num) VALUES ($1)", revision);
}

}  // namespace

constexpr const char* kPgStudyIdIndex = "CREATE INDEX ix_trials_study_id ON trials (study_id)";

std::vector<std::string> pg_schema_ddl(const std::string& revision) {
  std::vector<std::string> ddl = {
      "CREATE TYPE studydirection AS ENUM ('NOT_SET', 'MINIMIZE', 'MAXIMIZE')",
      "CREATE TYPE trialstate AS ENUM ('RUNNING', 'COMPLETE', 'PRUNED', 'FAIL', 'WAITING')",
      "CREATE TYPE trialvaluetype AS ENUM ('FINITE', 'INF_POS', 'INF_NEG')",
      "CREATE TYPE trialintermediatevaluetype AS ENUM ('FINITE', 'INF_POS', 'INF_NEG', 'NAN')",
      "CREATE TABLE studies (study_id SERIAL NOT NULL, study_name VARCHAR(512) NOT NULL, "
      "PRIMARY KEY (study_id))",
      "CREATE UNIQUE INDEX ix_studies_study_name ON studies (study_name)",
      "CREATE TABLE version_info (version_info_id INTEGER NOT NULL, schema_version INTEGER, "
      "library_version VARCHAR(256), PRIMARY KEY (version_info_id), CHECK (version_info_id=1))",
      "CREATE TABLE study_directions (study_direction_id SERIAL NOT NULL, direction studydirection "
      "NOT NULL, "
      "study_id INTEGER NOT NULL, objective INTEGER NOT NULL, PRIMARY KEY (study_direction_id), "
      "UNIQUE (study_id, objective), FOREIGN KEY(study_id) REFERENCES studies (study_id))",
      pg_attribute_table("study", "studies", "user"),
      pg_attribute_table("study", "studies", "system"),
      "CREATE TABLE trials (trial_id SERIAL NOT NULL, number INTEGER, study_id INTEGER, "
      "state trialstate NOT NULL, datetime_start TIMESTAMP WITHOUT TIME ZONE, "
      "datetime_complete TIMESTAMP WITHOUT TIME ZONE, PRIMARY KEY (trial_id), "
      "FOREIGN KEY(study_id) REFERENCES studies (study_id))",
      // Optuna >= 3.2's models.py (index=True); the migration names it trials_study_id_key.
      kPgStudyIdIndex,
      pg_attribute_table("trial", "trials", "user"),
      pg_attribute_table("trial", "trials", "system"),
      "CREATE TABLE trial_params (param_id SERIAL NOT NULL, trial_id INTEGER, param_name "
      "VARCHAR(512), "
      "param_value FLOAT, distribution_json TEXT, PRIMARY KEY (param_id), UNIQUE (trial_id, "
      "param_name), "
      "FOREIGN KEY(trial_id) REFERENCES trials (trial_id))",
      "CREATE TABLE trial_values (trial_value_id SERIAL NOT NULL, trial_id INTEGER NOT NULL, "
      "objective INTEGER NOT NULL, value FLOAT, value_type trialvaluetype NOT NULL, "
      "PRIMARY KEY (trial_value_id), UNIQUE (trial_id, objective), "
      "FOREIGN KEY(trial_id) REFERENCES trials (trial_id))",
      "CREATE TABLE trial_intermediate_values (trial_intermediate_value_id SERIAL NOT NULL, "
      "trial_id INTEGER NOT NULL, step INTEGER NOT NULL, intermediate_value FLOAT, "
      "intermediate_value_type trialintermediatevaluetype NOT NULL, "
      "PRIMARY KEY (trial_intermediate_value_id), UNIQUE (trial_id, step), "
      "FOREIGN KEY(trial_id) REFERENCES trials (trial_id))",
      "CREATE TABLE trial_heartbeats (trial_heartbeat_id SERIAL NOT NULL, trial_id INTEGER NOT "
      "NULL, "
      "heartbeat TIMESTAMP WITHOUT TIME ZONE NOT NULL, PRIMARY KEY (trial_heartbeat_id), UNIQUE "
      "(trial_id), "
      "FOREIGN KEY(trial_id) REFERENCES trials (trial_id))",
      "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, "
      "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))",
  };
  if (!has_study_id_index(revision)) ddl.erase(std::find(ddl.begin(), ddl.end(), kPgStudyIdIndex));
  return ddl;
}

void ensure_pg_schema(pqxx::work& tx, bool create, const std::string& new_revision) {
  tx.exec_params("SELECT pg_advisory_xact_lock($1)", kSchemaLockKey);
  if (!has_tables(tx)) {
    if (!create) throw StorageError("the database has no study tables yet (hpo run creates them)");
    create_schema(tx, new_revision);
    return;
  }
  if (!table_exists(tx, "version_info") || !table_exists(tx, "alembic_version")) {
    throw StorageError(
        "not an Optuna study database (it has tables but no version_info or alembic_version)");
  }
  const auto v =
      tx.exec("SELECT schema_version, library_version FROM version_info WHERE version_info_id = 1");
  const std::string revision = pg_schema_revision(tx);
  const bool schema_ok =
      v.size() == 1 && !v[0][0].is_null() && v[0][0].as<int>() == kOptunaSchemaVersion;
  if (!schema_ok) {
    const std::string schema = v.empty() ? "none" : v[0][0].is_null() ? "NULL" : v[0][0].c_str();
    throw StorageError("found schema version " + schema + " (alembic " + revision +
                       "), expected schema version " + std::to_string(kOptunaSchemaVersion) +
                       " with alembic " + kRevisionOptuna30 + " or " + kRevisionOptuna32);
  }
  if (!is_supported_revision(revision)) {
    throw StorageError("found schema version " + std::to_string(kOptunaSchemaVersion) +
                       " (alembic " + revision + "): " + unsupported_revision_message(revision));
  }
}

std::string pg_schema_revision(pqxx::work& tx) {
  const auto r = tx.exec("SELECT version_num FROM alembic_version");
  return r.empty() ? "none" : r[0][0].c_str();
}

bool upgrade_pg_schema(pqxx::work& tx) {
  tx.exec_params("SELECT pg_advisory_xact_lock($1)", kSchemaLockKey);
  const std::string revision = pg_schema_revision(tx);
  if (revision == kNewestRevision) return false;
  if (!is_supported_revision(revision)) {
    throw StorageError("cannot upgrade: " + unsupported_revision_message(revision));
  }
  for (const auto& sql : upgrade_statements(revision)) tx.exec0(sql);
  tx.exec_params0("UPDATE alembic_version SET version_num = $1", kNewestRevision);
  // As Optuna's upgrade does: version_info names who set the schema up.
  tx.exec_params0(
      "UPDATE version_info SET schema_version = $1, library_version = $2 WHERE version_info_id = 1",
      kOptunaSchemaVersion, kOptunaLibraryVersion);
  return true;
}

}  // namespace hpo
