#include "hpo/storage/sqlite_storage.h"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hpo/storage/open_storage.h"
#include "hpo/storage/sqlite_db.h"
#include "tests/unit/temp_dir.h"

namespace hpo {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Optuna 3.1's schema as `sqlite3 FILE .schema` prints it for a database
// Optuna created, each statement joined onto one line.
const char* const kOptunaSchema[] = {
    "CREATE TABLE studies (study_id INTEGER NOT NULL, study_name VARCHAR(512) NOT NULL, PRIMARY "
    "KEY (study_id))",
    "CREATE UNIQUE INDEX ix_studies_study_name ON studies (study_name)",
    "CREATE TABLE version_info (version_info_id INTEGER NOT NULL, schema_version INTEGER, "
    "library_version VARCHAR(256), PRIMARY KEY (version_info_id), CHECK (version_info_id=1))",
    "CREATE TABLE study_directions (study_direction_id INTEGER NOT NULL, direction VARCHAR(8) NOT "
    "NULL, study_id INTEGER NOT NULL, objective INTEGER NOT NULL, PRIMARY KEY "
    "(study_direction_id), UNIQUE (study_id, objective), FOREIGN KEY(study_id) REFERENCES studies "
    "(study_id))",
    "CREATE TABLE study_user_attributes (study_user_attribute_id INTEGER NOT NULL, study_id "
    "INTEGER, \"key\" VARCHAR(512), value_json TEXT, PRIMARY KEY (study_user_attribute_id), UNIQUE "
    "(study_id, \"key\"), FOREIGN KEY(study_id) REFERENCES studies (study_id))",
    "CREATE TABLE study_system_attributes (study_system_attribute_id INTEGER NOT NULL, study_id "
    "INTEGER, \"key\" VARCHAR(512), value_json TEXT, PRIMARY KEY (study_system_attribute_id), "
    "UNIQUE (study_id, \"key\"), FOREIGN KEY(study_id) REFERENCES studies (study_id))",
    "CREATE TABLE trials (trial_id INTEGER NOT NULL, number INTEGER, study_id INTEGER, state "
    "VARCHAR(8) NOT NULL, datetime_start DATETIME, datetime_complete DATETIME, PRIMARY KEY "
    "(trial_id), FOREIGN KEY(study_id) REFERENCES studies (study_id))",
    "CREATE INDEX ix_trials_study_id ON trials (study_id)",
    "CREATE TABLE trial_user_attributes (trial_user_attribute_id INTEGER NOT NULL, trial_id "
    "INTEGER, \"key\" VARCHAR(512), value_json TEXT, PRIMARY KEY (trial_user_attribute_id), UNIQUE "
    "(trial_id, \"key\"), FOREIGN KEY(trial_id) REFERENCES trials (trial_id))",
    "CREATE TABLE trial_system_attributes (trial_system_attribute_id INTEGER NOT NULL, trial_id "
    "INTEGER, \"key\" VARCHAR(512), value_json TEXT, PRIMARY KEY (trial_system_attribute_id), "
    "UNIQUE (trial_id, \"key\"), FOREIGN KEY(trial_id) REFERENCES trials (trial_id))",
    "CREATE TABLE trial_params (param_id INTEGER NOT NULL, trial_id INTEGER, param_name "
    "VARCHAR(512), param_value FLOAT, distribution_json TEXT, PRIMARY KEY (param_id), UNIQUE "
    "(trial_id, param_name), FOREIGN KEY(trial_id) REFERENCES trials (trial_id))",
    "CREATE TABLE trial_values (trial_value_id INTEGER NOT NULL, trial_id INTEGER NOT NULL, "
    "objective INTEGER NOT NULL, value FLOAT, value_type VARCHAR(7) NOT NULL, PRIMARY KEY "
    "(trial_value_id), UNIQUE (trial_id, objective), FOREIGN KEY(trial_id) REFERENCES trials "
    "(trial_id))",
    "CREATE TABLE trial_intermediate_values (trial_intermediate_value_id INTEGER NOT NULL, "
    "trial_id INTEGER NOT NULL, step INTEGER NOT NULL, intermediate_value FLOAT, "
    "intermediate_value_type VARCHAR(7) NOT NULL, PRIMARY KEY (trial_intermediate_value_id), "
    "UNIQUE (trial_id, step), FOREIGN KEY(trial_id) REFERENCES trials (trial_id))",
    "CREATE TABLE trial_heartbeats (trial_heartbeat_id INTEGER NOT NULL, trial_id INTEGER NOT "
    "NULL, heartbeat DATETIME NOT NULL, PRIMARY KEY (trial_heartbeat_id), UNIQUE (trial_id), "
    "FOREIGN KEY(trial_id) REFERENCES trials (trial_id))",
    "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, CONSTRAINT "
    "alembic_version_pkc PRIMARY KEY (version_num))",
};

// Joins SQLAlchemy's one-column-per-line layout onto one line.
std::string one_line(std::string sql) {
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"(\n\t", "("}, {", \n\t", ", "}, {"\n)", ")"}}) {
    for (size_t at; (at = sql.find(from)) != std::string::npos;) sql.replace(at, from.size(), to);
  }
  return sql;
}

TEST_CASE("a new database has Optuna 3.2-5.0's schema, statement for statement") {
  TempDir dir;
  const std::string path = dir.path("schema.db");
  { SqliteStorage storage(path); }
  SqliteDb db(path);
  Statement st(db, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid");
  std::vector<std::string> found;
  while (st.step()) {
    const std::string sql = st.text(0);
    const bool sqlalchemy_layout =
        sql.find("INDEX") != std::string::npos || sql.find("(\n\t") != std::string::npos;
    CHECK_MESSAGE(sqlalchemy_layout, sql);
    found.push_back(one_line(sql));
  }
  CHECK(found == std::vector<std::string>(std::begin(kOptunaSchema), std::end(kOptunaSchema)));

  Statement versions(
      db, "SELECT schema_version, library_version, version_num FROM version_info, alembic_version");
  REQUIRE(versions.step());
  CHECK(versions.int64(0) == 12);
  CHECK(versions.text(1) == "3.2.0");
  CHECK(versions.text(2) == "v3.2.0.a");
  Statement mode(db, "PRAGMA journal_mode");
  REQUIRE(mode.step());
  CHECK(mode.text(0) == "wal");
}

// Sets the version rows of an hpo-made database, through SQLite directly.
void set_versions(const std::string& path, int schema, const std::string& alembic) {
  SqliteDb db(path);
  Statement(db, "UPDATE version_info SET schema_version = ?1").bind(1, schema).run();
  Statement(db, "UPDATE alembic_version SET version_num = ?1").bind(1, alembic).run();
}

TEST_CASE("a database of another schema version is refused and left untouched") {
  TempDir dir;
  const std::string path = dir.path("old.db");
  {
    SqliteStorage storage(path);
    storage.get_or_create_study("s", Direction::kMaximize);
  }
  set_versions(path, 11, "v2.6.0.a");
  const std::string before = read_bytes(path);
  CHECK_THROWS_WITH_AS(SqliteStorage{path}, doctest::Contains("schema version 11"), StorageError);
  try {
    SqliteStorage storage(path);
  } catch (const StorageError& e) {
    const std::string message = e.what();
    CHECK(message.find(path) != std::string::npos);
    CHECK(message.find("v2.6.0.a") != std::string::npos);
    CHECK(message.find("expected schema version 12") != std::string::npos);
  }
  CHECK(read_bytes(path) == before);

  set_versions(path, 12, "v3.3.0.a");  // right version_info, an alembic revision hpo does not know
  const std::string newer = read_bytes(path);
  CHECK_THROWS_WITH_AS(SqliteStorage{path}, doctest::Contains("v3.3.0.a is unknown to hpo"),
                       StorageError);
  CHECK_THROWS_WITH_AS(SqliteStorage{path},
                       doctest::Contains("v3.0.0.d (Optuna 3.0-3.1) and v3.2.0.a"), StorageError);
  CHECK(read_bytes(path) == newer);
}

// Turns a new hpo database into one as Optuna 3.1 makes it: revision
// v3.0.0.d, which has no index on trials.study_id.
void make_optuna_31_database(const std::string& path) {
  { SqliteStorage storage(path); }
  SqliteDb db(path);
  db.exec("DROP INDEX ix_trials_study_id");
  db.exec("UPDATE alembic_version SET version_num = 'v3.0.0.d'");
  db.exec("UPDATE version_info SET library_version = '3.1.0'");
}

std::vector<std::string> index_names(const std::string& path) {
  SqliteDb db(path);
  Statement st(
      db, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name");
  std::vector<std::string> names;
  while (st.step()) names.push_back(st.text(0));
  return names;
}

TEST_CASE("a v3.0.0.d database is used at its revision and upgraded only when asked") {
  TempDir dir;
  const std::string path = dir.path("optuna31.db");
  make_optuna_31_database(path);
  {
    SqliteStorage storage(path);
    CHECK(storage.schema_revision() == "v3.0.0.d");
    const auto study = storage.get_or_create_study("s", Direction::kMaximize);
    const auto t = storage.create_trial(study.id, NewTrial{});
    CHECK(storage.finish_trial(t.id, TrialOutcome{TrialState::kComplete, 0.5, {}, {}}));
  }
  CHECK(index_names(path) == std::vector<std::string>{"ix_studies_study_name"});
  SqliteStorage storage(path);
  CHECK(storage.schema_revision() == "v3.0.0.d");
  CHECK(storage.upgrade_schema());
  CHECK(storage.schema_revision() == "v3.2.0.a");
  // Optuna's migration names the index trials_study_id_key, not ix_trials_study_id.
  CHECK(index_names(path) ==
        std::vector<std::string>{"ix_studies_study_name", "trials_study_id_key"});
  CHECK_FALSE(storage.upgrade_schema());
  CHECK(index_names(path) ==
        std::vector<std::string>{"ix_studies_study_name", "trials_study_id_key"});
  const auto study = storage.find_study("s");
  REQUIRE(study);
  const auto trials = storage.trials(study->id);
  REQUIRE(trials.size() == 1);
  CHECK(trials[0].value == 0.5);
  SqliteDb db(path);
  Statement version(db, "SELECT library_version FROM version_info");
  REQUIRE(version.step());
  CHECK(version.text(0) == "3.2.0");
}

TEST_CASE("a file that is not a database is refused and left untouched") {
  TempDir dir;
  const std::string path = dir.path("garbage.db");
  std::string garbage;
  for (int i = 0; i < 512; ++i) garbage += "not a database, just text ";
  std::ofstream(path, std::ios::binary) << garbage;
  CHECK_THROWS_WITH_AS(SqliteStorage{path}, doctest::Contains(("sqlite:///" + path).c_str()),
                       StorageError);
  CHECK_THROWS_WITH_AS(SqliteStorage{path}, doctest::Contains("not a database"), StorageError);
  CHECK(read_bytes(path) == garbage);
}

TEST_CASE("a SQLite database with other tables is not taken for a study") {
  TempDir dir;
  const std::string path = dir.path("other.db");
  { SqliteDb(path).exec("CREATE TABLE notes (text TEXT)"); }
  CHECK_THROWS_WITH_AS(SqliteStorage{path}, doctest::Contains("not an Optuna study database"),
                       StorageError);
}

TEST_CASE("open_storage takes SQLAlchemy-style sqlite URLs") {
  TempDir dir;
  const std::string absolute = dir.path("nested/deeper/a.db");
  auto storage = open_storage("sqlite:///" + absolute);  // four slashes: absolute
  CHECK(storage->url() == "sqlite:///" + absolute);
  CHECK(fs::exists(absolute));
  storage->get_or_create_study("s", Direction::kMaximize);

  const auto cwd = fs::current_path();
  fs::current_path(dir.path(""));
  CHECK_NOTHROW(open_storage("sqlite:///rel/b.db"));
  fs::current_path(cwd);
  CHECK(fs::exists(dir.path("rel/b.db")));

  // PostgreSQL URLs reach the server (here: none), their password masked.
  CHECK_THROWS_WITH_AS(open_storage("postgresql://u:pw@/db?host=" + dir.path("no-server")),
                       doctest::Contains("postgresql://u:***@/db"), StorageError);
  CHECK_THROWS_WITH_AS(open_storage("mysql://h/db"), doctest::Contains("mysql://h/db"),
                       StorageError);
  CHECK_THROWS_WITH_AS(open_storage("study.db"), doctest::Contains("sqlite:////absolute"),
                       StorageError);
  CHECK_THROWS_AS(open_storage("sqlite:///"), StorageError);
}

TEST_CASE("open_storage for reading leaves a missing database missing") {
  TempDir dir;
  const std::string path = dir.path("typo/x.db");
  const std::string expected = "no database file " + path;
  CHECK_THROWS_WITH_AS(open_storage("sqlite:///" + path, OpenMode::kMustExist),
                       doctest::Contains(expected.c_str()), StorageError);
  CHECK(!fs::exists(dir.path("typo")));
  open_storage("sqlite:///" + path)->get_or_create_study("s", Direction::kMaximize);
  CHECK(open_storage("sqlite:///" + path, OpenMode::kMustExist)->list_studies().size() == 1);
}

TEST_CASE("an unopenable path names the database and the failure") {
  TempDir dir;
  const std::string path = dir.path("missing-dir/x.db");  // SqliteStorage creates no directories
  CHECK_THROWS_WITH_AS(SqliteStorage{path},
                       doctest::Contains(("sqlite:///" + path + ": cannot open: ").c_str()),
                       StorageError);
}

// Holds the database's write lock from another connection, as a busy
// process would, until release().
class WriteLock {
 public:
  explicit WriteLock(const std::string& path) : db_(path) { db_.exec("BEGIN IMMEDIATE"); }
  ~WriteLock() { release(); }
  void release() {
    if (held_) db_.exec("ROLLBACK");
    held_ = false;
  }

 private:
  SqliteDb db_;
  bool held_ = true;
};

TEST_CASE("a write blocked beyond the busy timeout is retried, then fails cleanly") {
  using std::chrono::milliseconds;
  TempDir dir;
  const std::string path = dir.path("busy.db");
  SqliteStorage storage(path, milliseconds(20));
  const auto study = storage.get_or_create_study("s", Direction::kMaximize);

  WriteLock lock(path);
  std::thread releaser([&] {
    std::this_thread::sleep_for(milliseconds(300));  // many busy timeouts long
    lock.release();
  });
  CHECK_NOTHROW(storage.create_trial(study.id, {}));  // succeeds on a retry
  releaser.join();
  CHECK(storage.trials(study.id).size() == 1);

  WriteLock forever(path);
  CHECK_THROWS_WITH_AS(storage.create_trial(study.id, {}), doctest::Contains("database is locked"),
                       StorageError);
  forever.release();
  CHECK(storage.trials(study.id).size() == 1);  // the failed create left nothing
  CHECK(storage.create_trial(study.id, {}).number == 1);
}

}  // namespace
}  // namespace hpo
