#include "hpo/storage/optuna_schema.h"

#include <algorithm>
#include <initializer_list>

#include "hpo/storage/optuna_revision.h"
#include "hpo/storage/sqlite_db.h"
#include "hpo/storage/storage.h"

namespace hpo {

namespace {

// SQLAlchemy's layout: one tab-indented line per column or constraint,
// each but the last ending in ", ".
std::string create_table(const std::string& name, std::initializer_list<std::string> lines) {
  std::string sql = "CREATE TABLE " + name + " (\n";
  const char* separator = "\t";
  for (const auto& line : lines) {
    sql += separator;
    sql += line;
    separator = ", \n\t";
  }
  return sql + "\n)";
}

// The four *_attributes tables differ only in their names.
std::string attribute_table(const std::string& owner, const std::string& owners,
                            const std::string& kind) {
  const std::string id = owner + "_" + kind + "_attribute_id";
  const std::string owner_id = owner + "_id";
  return create_table(
      owner + "_" + kind + "_attributes",
      {id + " INTEGER NOT NULL", owner_id + " INTEGER", "\"key\" VARCHAR(512)", "value_json TEXT",
       "PRIMARY KEY (" + id + ")", "UNIQUE (" + owner_id + ", \"key\")",
       "FOREIGN KEY(" + owner_id + ") REFERENCES " + owners + " (" + owner_id + ")"});
}

bool table_exists(SqliteDb& db, const char* name) {
  Statement st(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  st.bind(1, name);
  return st.step();
}

int64_t count_schema_objects(SqliteDb& db) {
  Statement st(db, "SELECT COUNT(*) FROM sqlite_master");
  st.step();
  return st.int64(0);
}

void create_schema(SqliteDb& db, const std::string& revision) {
  for (const auto& sql : optuna_schema_ddl(revision)) Statement(db, sql).run();
  Statement(db,
            "INSERT INTO version_info (version_info_id, schema_version, library_version) "
            "VALUES (1, ?1, ?2)")
      .bind(1, kOptunaSchemaVersion)
      .bind(2, library_version_for(revision))
      .run();
  Statement(db, "INSERT INTO alembic_version (version_num) VALUES (?1)").bind(1, revision).run();
}

// The single alembic revision, or "" if there is none (or several).
std::string alembic_revision(SqliteDb& db) {
  if (!table_exists(db, "alembic_version")) return "";
  Statement st(db, "SELECT version_num FROM alembic_version");
  if (!st.step()) return "";
  const std::string revision = st.text(0);
  return st.step() ? "" : revision;
}

// The database's versions for messages, e.g. "schema version 11 (Optuna
// 2.10.0, alembic v2.6.0.a)".
std::string found_versions(SqliteDb& db) {
  std::string schema = "none", library = "none", alembic = alembic_revision(db);
  Statement v(db,
              "SELECT schema_version, library_version FROM version_info WHERE version_info_id = 1");
  if (v.step()) {
    schema = v.is_null(0) ? "NULL" : std::to_string(v.int64(0));
    library = v.is_null(1) ? "NULL" : v.text(1);
  }
  if (alembic.empty()) alembic = "none";
  return "schema version " + schema + " (Optuna " + library + ", alembic " + alembic + ")";
}

bool has_schema_version(SqliteDb& db, int version) {
  Statement st(db, "SELECT 1 FROM version_info WHERE version_info_id = 1 AND schema_version = ?1");
  st.bind(1, version);
  return st.step();
}

}  // namespace

constexpr const char* kStudyIdIndex = "CREATE INDEX ix_trials_study_id ON trials (study_id)";

std::vector<std::string> optuna_schema_ddl(const std::string& revision) {
  std::vector<std::string> ddl = {
      create_table("studies", {"study_id INTEGER NOT NULL", "study_name VARCHAR(512) NOT NULL",
                               "PRIMARY KEY (study_id)"}),
      "CREATE UNIQUE INDEX ix_studies_study_name ON studies (study_name)",
      create_table("version_info", {"version_info_id INTEGER NOT NULL", "schema_version INTEGER",
                                    "library_version VARCHAR(256)", "PRIMARY KEY (version_info_id)",
                                    "CHECK (version_info_id=1)"}),
      create_table("study_directions",
                   {"study_direction_id INTEGER NOT NULL", "direction VARCHAR(8) NOT NULL",
                    "study_id INTEGER NOT NULL", "objective INTEGER NOT NULL",
                    "PRIMARY KEY (study_direction_id)", "UNIQUE (study_id, objective)",
                    "FOREIGN KEY(study_id) REFERENCES studies (study_id)"}),
      attribute_table("study", "studies", "user"),
      attribute_table("study", "studies", "system"),
      create_table("trials", {"trial_id INTEGER NOT NULL", "number INTEGER", "study_id INTEGER",
                              "state VARCHAR(8) NOT NULL", "datetime_start DATETIME",
                              "datetime_complete DATETIME", "PRIMARY KEY (trial_id)",
                              "FOREIGN KEY(study_id) REFERENCES studies (study_id)"}),
      // Optuna 3.2's `index=True` on trials.study_id.
      kStudyIdIndex,
      attribute_table("trial", "trials", "user"),
      attribute_table("trial", "trials", "system"),
      create_table(
          "trial_params",
          {"param_id INTEGER NOT NULL", "trial_id INTEGER", "param_name VARCHAR(512)",
           "param_value FLOAT", "distribution_json TEXT", "PRIMARY KEY (param_id)",
           "UNIQUE (trial_id, param_name)", "FOREIGN KEY(trial_id) REFERENCES trials (trial_id)"}),
      create_table("trial_values",
                   {"trial_value_id INTEGER NOT NULL", "trial_id INTEGER NOT NULL",
                    "objective INTEGER NOT NULL", "value FLOAT", "value_type VARCHAR(7) NOT NULL",
                    "PRIMARY KEY (trial_value_id)", "UNIQUE (trial_id, objective)",
                    "FOREIGN KEY(trial_id) REFERENCES trials (trial_id)"}),
      create_table("trial_intermediate_values",
                   {"trial_intermediate_value_id INTEGER NOT NULL", "trial_id INTEGER NOT NULL",
                    "step INTEGER NOT NULL", "intermediate_value FLOAT",
                    "intermediate_value_type VARCHAR(7) NOT NULL",
                    "PRIMARY KEY (trial_intermediate_value_id)", "UNIQUE (trial_id, step)",
                    "FOREIGN KEY(trial_id) REFERENCES trials (trial_id)"}),
      create_table("trial_heartbeats",
                   {"trial_heartbeat_id INTEGER NOT NULL", "trial_id INTEGER NOT NULL",
                    "heartbeat DATETIME NOT NULL", "PRIMARY KEY (trial_heartbeat_id)",
                    "UNIQUE (trial_id)", "FOREIGN KEY(trial_id) REFERENCES trials (trial_id)"}),
      create_table("alembic_version", {"version_num VARCHAR(32) NOT NULL",
                                       "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)"}),
  };
  if (!has_study_id_index(revision)) ddl.erase(std::find(ddl.begin(), ddl.end(), kStudyIdIndex));
  return ddl;
}

void ensure_optuna_schema(SqliteDb& db, const std::string& new_revision) {
  if (count_schema_objects(db) == 0) {
    create_schema(db, new_revision);
    return;
  }
  check_optuna_schema(db);
}

void check_optuna_schema(SqliteDb& db) {
  if (count_schema_objects(db) == 0) {
    throw StorageError("not a study database (it has no tables; hpo run creates them)");
  }
  if (!table_exists(db, "version_info")) {
    throw StorageError("not an Optuna study database (it has tables but no version_info)");
  }
  const std::string revision = alembic_revision(db);
  if (!has_schema_version(db, kOptunaSchemaVersion) || revision.empty()) {
    throw StorageError("found " + found_versions(db) + ", expected schema version " +
                       std::to_string(kOptunaSchemaVersion) + " with one alembic revision, " +
                       kRevisionOptuna30 + " or " + kRevisionOptuna32);
  }
  if (!is_supported_revision(revision)) {
    throw StorageError("found " + found_versions(db) + ": " +
                       unsupported_revision_message(revision));
  }
}

std::string optuna_schema_revision(SqliteDb& db) { return alembic_revision(db); }

bool upgrade_optuna_schema(SqliteDb& db) {
  const std::string revision = alembic_revision(db);
  if (revision == kNewestRevision) return false;
  if (!is_supported_revision(revision)) {
    throw StorageError("cannot upgrade: " + unsupported_revision_message(revision));
  }
  for (const auto& sql : upgrade_statements(revision)) Statement(db, sql).run();
  Statement(db, "UPDATE alembic_version SET version_num = ?1").bind(1, kNewestRevision).run();
  // As Optuna's upgrade does: version_info names who set the schema up.
  Statement(db,
            "UPDATE version_info SET schema_version = ?1, library_version = ?2 "
            "WHERE version_info_id = 1")
      .bind(1, kOptunaSchemaVersion)
      .bind(2, kOptunaLibraryVersion)
      .run();
  return true;
}

}  // namespace hpo
