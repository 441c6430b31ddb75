#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
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
#include "hpo/storage/sqlite_storage.h"

namespace hpo {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kInf = std::numeric_limits<double>::infinity();

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("hpo_storage_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const Distribution kLr = FloatDistribution{5e-6, 5e-3, true, std::nullopt};
const Distribution kDropout = FloatDistribution{0.0, 0.5, false, 0.1};
const Distribution kLayers = IntDistribution{2, 11, false, 3};
const Distribution kWidth = IntDistribution{8, 512, true, 1};
const Distribution kBatch = CategoricalDistribution{{int64_t{64}, int64_t{128}, int64_t{256}}};
const Distribution kAct =
    CategoricalDistribution{{std::string("relu"), true, std::monostate{}, 0.5}};

NewTrial sample_trial(int i) {
  NewTrial t;
  t.params = {{"lr", kLr, 1e-4 * (i + 1)},
              {"dropout", kDropout, 0.1 * (i % 6)},
              {"layers", kLayers, 2.0 + 3 * (i % 4)},
              {"width", kWidth, 64},
              {"batch", kBatch, static_cast<double>(i % 3)},
              {"act", kAct, static_cast<double>(i % 4)}};
  t.user_attrs = {{"worker", "w" + std::to_string(i)}};
  t.system_attrs = {{"hpo:pid", 1000 + i}};
  return t;
}

// Removes a test database with its WAL and shared-memory files.
void remove_database(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
}

bool same_params(const std::vector<StoredParam>& a, const std::vector<StoredParam>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || !(a[i].distribution == b[i].distribution) ||
        a[i].internal != b[i].internal) {
      return false;
    }
  }
  return true;
}

TEST_CASE("a study round-trips through the database") {
  TempDir dir;
  const std::string path = dir.file("study.db");
  int64_t study_id = 0;
  std::vector<TrialRecord> created;
  {
    SqliteStorage storage(path);
    CHECK(storage.url() == "sqlite:///" + path);
    const StudyRecord study = storage.get_or_create_study("mission", Direction::kMaximize);
    study_id = study.id;
    CHECK(study.name == "mission");
    storage.set_study_user_attr(study_id, "metric", "sharpe");
    for (int i = 0; i < 4; ++i) created.push_back(storage.create_trial(study_id, sample_trial(i)));
    storage.set_intermediate_value(created[0].id, 0, 0.1);
    storage.set_intermediate_value(created[0].id, 1, 0.2);
    storage.set_intermediate_value(created[0].id, 1, 0.25);  // replaces step 1
    storage.set_intermediate_value(created[1].id, 0, std::nan(""));
    storage.set_intermediate_value(created[1].id, 1, -kInf);
    storage.set_trial_system_attr(created[2].id, "hpo:host", "node7");
    CHECK(storage.finish_trial(created[0].id, {TrialState::kComplete, 1.5, {{"sharpe", 1.2}}, {}}));
    CHECK(storage.finish_trial(created[1].id, {TrialState::kPruned, std::nullopt, {}, {}}));
    CHECK(storage.finish_trial(created[2].id,
                               {TrialState::kFail, std::nullopt, {}, {{"hpo:exit", 3}}}));
  }

  SqliteStorage storage(path);  // reopened: everything comes from the file
  REQUIRE(storage.find_study("mission").has_value());
  CHECK(storage.find_study("mission")->id == study_id);
  CHECK_FALSE(storage.find_study("other").has_value());
  CHECK(storage.study_user_attrs(study_id) == Attrs{{"metric", "sharpe"}});

  const auto trials = storage.trials(study_id);
  REQUIRE(trials.size() == 4);
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(trials[i].id == created[i].id);
    CHECK(trials[i].number == i);
    CHECK(same_params(trials[i].params, sample_trial(i).params));
    CHECK(trials[i].user_attrs.at("worker") == "w" + std::to_string(i));
    CHECK(trials[i].system_attrs.at("hpo:pid") == 1000 + i);
    CHECK(trials[i].datetime_start == created[i].datetime_start);
  }
  CHECK(trials[0].state == TrialState::kComplete);
  CHECK(trials[0].value == 1.5);
  CHECK(trials[0].intermediate == std::map<int, double>{{0, 0.1}, {1, 0.25}});
  CHECK(trials[0].user_attrs.at("sharpe") == 1.2);
  CHECK_FALSE(trials[0].datetime_complete.empty());
  CHECK(trials[1].state == TrialState::kPruned);
  CHECK_FALSE(trials[1].value.has_value());
  REQUIRE(trials[1].intermediate.size() == 2);
  CHECK(std::isnan(trials[1].intermediate.at(0)));
  CHECK(trials[1].intermediate.at(1) == -kInf);
  CHECK(trials[2].state == TrialState::kFail);
  CHECK(trials[2].system_attrs.at("hpo:host") == "node7");
  CHECK(trials[2].system_attrs.at("hpo:exit") == 3);
  CHECK(trials[3].state == TrialState::kRunning);
  CHECK(trials[3].datetime_complete.empty());

  const auto one = storage.trial(created[2].id);
  REQUIRE(one.has_value());
  CHECK(one->number == 2);
  CHECK(same_params(one->params, trials[2].params));
  CHECK(one->system_attrs == trials[2].system_attrs);
  CHECK_FALSE(storage.trial(created[3].id + 100).has_value());
}

TEST_CASE("finishing a finished trial returns false and changes nothing") {
  TempDir dir;
  SqliteStorage storage(dir.file("s.db"));
  const auto study = storage.get_or_create_study("s", Direction::kMinimize);
  const auto t = storage.create_trial(study.id, sample_trial(0));
  REQUIRE(storage.finish_trial(t.id, {TrialState::kComplete, 2.0, {{"a", 1}}, {}}));
  const auto before = storage.trial(t.id);
  CHECK_FALSE(
      storage.finish_trial(t.id, {TrialState::kFail, std::nullopt, {{"a", 2}}, {{"b", 3}}}));
  CHECK_FALSE(storage.finish_trial(t.id, {TrialState::kComplete, 9.0, {}, {}}));
  const auto after = storage.trial(t.id);
  CHECK(after->state == TrialState::kComplete);
  CHECK(after->value == 2.0);
  CHECK(after->user_attrs == before->user_attrs);
  CHECK(after->system_attrs == before->system_attrs);
  CHECK(after->datetime_complete == before->datetime_complete);
  // A finished trial takes no more reports, as in Optuna.
  CHECK_THROWS_AS(storage.set_intermediate_value(t.id, 5, 1.0), StorageError);
  CHECK(storage.trial(t.id)->intermediate.empty());
}

TEST_CASE("malformed outcomes and params are refused without writing") {
  TempDir dir;
  SqliteStorage storage(dir.file("s.db"));
  const auto study = storage.get_or_create_study("s", Direction::kMinimize);
  const auto t = storage.create_trial(study.id, {});
  CHECK_THROWS_AS(storage.finish_trial(t.id, {TrialState::kComplete, std::nullopt, {}, {}}),
                  StorageError);
  CHECK_THROWS_AS(storage.finish_trial(t.id, {TrialState::kComplete, std::nan(""), {}, {}}),
                  StorageError);
  CHECK_THROWS_AS(storage.finish_trial(t.id, {TrialState::kRunning, 1.0, {}, {}}), StorageError);
  CHECK(storage.trial(t.id)->state == TrialState::kRunning);

  NewTrial bad;
  bad.params = {{"ok", kLayers, 5}, {"batch", kBatch, 3}};  // index 3 of 3 choices
  CHECK_THROWS_AS(storage.create_trial(study.id, bad), StorageError);
  CHECK(storage.trials(study.id).size() == 1);  // the failed create left nothing
  CHECK_THROWS_AS(storage.finish_trial(t.id + 1000, {TrialState::kFail, std::nullopt, {}, {}}),
                  StorageError);
  CHECK_THROWS_AS(storage.create_trial(study.id + 1000, {}), StorageError);
}

TEST_CASE("compare_and_set_trial_system_attr") {
  TempDir dir;
  SqliteStorage storage(dir.file("s.db"));
  const auto study = storage.get_or_create_study("s", Direction::kMaximize);
  const auto t = storage.create_trial(study.id, {});
  // Absent counts as null.
  CHECK_FALSE(storage.compare_and_set_trial_system_attr(t.id, "owner", "a", "b"));
  CHECK(storage.compare_and_set_trial_system_attr(t.id, "owner", nullptr, "a"));
  CHECK(storage.trial(t.id)->system_attrs.at("owner") == "a");
  CHECK_FALSE(storage.compare_and_set_trial_system_attr(t.id, "owner", nullptr, "b"));
  CHECK_FALSE(storage.compare_and_set_trial_system_attr(t.id, "owner", "x", "b"));
  CHECK(storage.compare_and_set_trial_system_attr(t.id, "owner", "a", json{{"pid", 7}}));
  CHECK(storage.trial(t.id)->system_attrs.at("owner") == json{{"pid", 7}});
  REQUIRE(storage.finish_trial(t.id, {TrialState::kFail, std::nullopt, {}, {}}));
  // Only RUNNING trials can be taken over.
  CHECK_FALSE(storage.compare_and_set_trial_system_attr(t.id, "owner", json{{"pid", 7}}, "c"));
  CHECK(storage.trial(t.id)->system_attrs.at("owner") == json{{"pid", 7}});
}

TEST_CASE("studies: get_or_create, directions and summaries") {
  TempDir dir;
  SqliteStorage storage(dir.file("s.db"));
  const auto max = storage.get_or_create_study("max", Direction::kMaximize);
  CHECK(storage.get_or_create_study("max", Direction::kMaximize).id == max.id);
  CHECK_THROWS_WITH_AS(storage.get_or_create_study("max", Direction::kMinimize),
                       doctest::Contains("MAXIMIZE"), StorageError);
  const auto min = storage.get_or_create_study("min", Direction::kMinimize);
  CHECK(min.id != max.id);

  const auto finish = [&](int64_t study, TrialState state, std::optional<double> value) {
    const auto t = storage.create_trial(study, {});
    REQUIRE(storage.finish_trial(t.id, {state, value, {}, {}}));
  };
  finish(max.id, TrialState::kComplete, 0.3);
  finish(max.id, TrialState::kComplete, 0.9);
  finish(max.id, TrialState::kPruned, 5.0);  // pruned values are not candidates
  finish(max.id, TrialState::kFail, std::nullopt);
  storage.create_trial(max.id, {});
  finish(min.id, TrialState::kComplete, 2.0);
  finish(min.id, TrialState::kComplete, -kInf);
  storage.get_or_create_study("empty", Direction::kMinimize);

  const auto studies = storage.list_studies();
  REQUIRE(studies.size() == 3);
  CHECK(studies[0].study.name == "max");
  CHECK(studies[0].counts == std::map<TrialState, int>{{TrialState::kComplete, 2},
                                                       {TrialState::kPruned, 1},
                                                       {TrialState::kFail, 1},
                                                       {TrialState::kRunning, 1}});
  CHECK(studies[0].best_value == 0.9);
  CHECK(studies[1].study.direction == Direction::kMinimize);
  CHECK(studies[1].best_value == -kInf);
  CHECK(studies[2].counts.empty());
  CHECK_FALSE(studies[2].best_value.has_value());
}

// Optuna 3.2-5.0's schema (alembic v3.2.0.a) as `sqlite3 FILE .schema`
// prints it for a database Optuna created, each statement joined onto one
// line. (test_schema.py checks it against Optuna 5.0's models.py.)
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
  const std::string path = dir.file("schema.db");
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
  const std::string path = dir.file("old.db");
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
  CHECK_THROWS_WITH_AS(SqliteStorage{path}, doctest::Contains("v3.3.0.a is unknown to hpo"), StorageError);
  CHECK_THROWS_WITH_AS(SqliteStorage{path}, doctest::Contains("v3.0.0.d (Optuna 3.0-3.1) and v3.2.0.a"),
                       StorageError);
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
  Statement st(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name");
  std::vector<std::string> names;
  while (st.step()) names.push_back(st.text(0));
  return names;
}

TEST_CASE("a v3.0.0.d database is used at its revision and upgraded only when asked") {
  TempDir dir;
  const std::string path = dir.file("optuna31.db");
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
  CHECK(index_names(path) == std::vector<std::string>{"ix_studies_study_name", "trials_study_id_key"});
  CHECK_FALSE(storage.upgrade_schema());
  CHECK(index_names(path) == std::vector<std::string>{"ix_studies_study_name", "trials_study_id_key"});
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
  const std::string path = dir.file("garbage.db");
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
  const std::string path = dir.file("other.db");
  { SqliteDb(path).exec("CREATE TABLE notes (text TEXT)"); }
  CHECK_THROWS_WITH_AS(SqliteStorage{path}, doctest::Contains("not an Optuna study database"),
                       StorageError);
}

TEST_CASE("open_storage takes SQLAlchemy-style sqlite URLs") {
  TempDir dir;
  const std::string absolute = dir.file("nested/deeper/a.db");
  auto storage = open_storage("sqlite:///" + absolute);  // four slashes: absolute
  CHECK(storage->url() == "sqlite:///" + absolute);
  CHECK(fs::exists(absolute));
  storage->get_or_create_study("s", Direction::kMaximize);

  const auto cwd = fs::current_path();
  fs::current_path(dir.file(""));
  CHECK_NOTHROW(open_storage("sqlite:///rel/b.db"));
  fs::current_path(cwd);
  CHECK(fs::exists(dir.file("rel/b.db")));

  CHECK_THROWS_WITH_AS(open_storage("postgresql://u@h/db"), doctest::Contains("not supported yet"),
                       StorageError);
  CHECK_THROWS_WITH_AS(open_storage("mysql://h/db"), doctest::Contains("mysql://h/db"),
                       StorageError);
  CHECK_THROWS_WITH_AS(open_storage("study.db"), doctest::Contains("sqlite:////absolute"),
                       StorageError);
  CHECK_THROWS_AS(open_storage("sqlite:///"), StorageError);
}

TEST_CASE("open_storage for reading leaves a missing database missing") {
  TempDir dir;
  const std::string path = dir.file("typo/x.db");
  const std::string expected = "no database file " + path;
  CHECK_THROWS_WITH_AS(open_storage("sqlite:///" + path, OpenMode::kMustExist),
                       doctest::Contains(expected.c_str()), StorageError);
  CHECK(!fs::exists(dir.file("typo")));
  open_storage("sqlite:///" + path)->get_or_create_study("s", Direction::kMaximize);
  CHECK(open_storage("sqlite:///" + path, OpenMode::kMustExist)->list_studies().size() == 1);
}

TEST_CASE("an unopenable path names the database and the failure") {
  TempDir dir;
  const std::string path = dir.file("missing-dir/x.db");  // SqliteStorage creates no directories
  CHECK_THROWS_WITH_AS(SqliteStorage{path},
                       doctest::Contains(("sqlite:///" + path + ": cannot open: ").c_str()),
                       StorageError);
}

// Each of 4 threads creates 50 trials, reports 3 steps each and finishes
// them; `storage_for(thread)` gives the storage the thread writes through.
template <typename StorageFor>
void run_writers(StorageFor storage_for, int64_t study_id) {
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      Storage& storage = storage_for(w);
      for (int i = 0; i < 50; ++i) {
        const auto t = storage.create_trial(study_id, sample_trial(i));
        for (int step = 0; step < 3; ++step) {
          storage.set_intermediate_value(t.id, step, w + 0.01 * step);
        }
        storage.finish_trial(t.id, {TrialState::kComplete, static_cast<double>(w), {}, {}});
      }
    });
  }
  for (auto& t : threads) t.join();
}

void check_writers_result(Storage& storage, int64_t study_id) {
  const auto trials = storage.trials(study_id);
  REQUIRE(trials.size() == 200);
  std::set<int> numbers;
  for (const auto& t : trials) {
    numbers.insert(t.number);
    CHECK(t.state == TrialState::kComplete);
    REQUIRE(t.intermediate.size() == 3);
    CHECK(t.intermediate.at(2) == *t.value + 0.02);
  }
  CHECK(numbers.size() == 200);
  CHECK(*numbers.begin() == 0);
  CHECK(*numbers.rbegin() == 199);
}

TEST_CASE("four writer threads share one storage") {
  TempDir dir;
  SqliteStorage storage(dir.file("shared.db"));
  const auto study = storage.get_or_create_study("s", Direction::kMaximize);
  run_writers([&](int) -> Storage& { return storage; }, study.id);
  check_writers_result(storage, study.id);
}

TEST_CASE("four writer threads each with their own storage on one file") {
  TempDir dir;
  const std::string path = dir.file("own.db");
  std::vector<std::unique_ptr<SqliteStorage>> storages;
  for (int w = 0; w < 4; ++w) storages.push_back(std::make_unique<SqliteStorage>(path));
  const auto study = storages[0]->get_or_create_study("s", Direction::kMaximize);
  run_writers([&](int w) -> Storage& { return *storages[w]; }, study.id);
  check_writers_result(*storages[3], study.id);
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
  const std::string path = dir.file("busy.db");
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

TEST_CASE("threads opening a new file at once all see one schema and one study") {
  TempDir dir;
  const std::string path = dir.file("race.db");
  std::vector<int64_t> ids(4);
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      SqliteStorage storage(path);
      ids[w] = storage.get_or_create_study("s", Direction::kMinimize).id;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(std::set<int64_t>(ids.begin(), ids.end()).size() == 1);
  CHECK(SqliteStorage(path).list_studies().size() == 1);
}

}  // namespace
}  // namespace hpo

namespace hpo {
namespace {

TEST_CASE("heartbeats: only RUNNING trials whose beat is older than the grace are stale") {
  const std::string path = "/tmp/hpo_heartbeat_test_" + std::to_string(::getpid()) + ".db";
  std::remove(path.c_str());
  {
    SqliteStorage storage(path);
    const auto study = storage.get_or_create_study("s", Direction::kMaximize);
    const auto a = storage.create_trial(study.id, {});
    const auto b = storage.create_trial(study.id, {});
    const auto c = storage.create_trial(study.id, {});  // never beats: not judged by heartbeat
    storage.record_heartbeat(a.id);
    storage.record_heartbeat(b.id);
    CHECK(storage.stale_trials(study.id, 60).empty());
    // Age a's beat by two minutes, as the database's clock sees it.
    {
      SqliteDb db(path);
      Statement(db, "UPDATE trial_heartbeats SET heartbeat = datetime('now', '-120 seconds') WHERE trial_id = ?")
          .bind(1, a.id)
          .run();
    }
    CHECK(storage.stale_trials(study.id, 60) == std::vector<int64_t>{a.id});
    CHECK(storage.stale_trials(study.id, 300).empty());
    storage.record_heartbeat(a.id);  // a beat renews it
    CHECK(storage.stale_trials(study.id, 60).empty());
    TrialOutcome fail;
    fail.state = TrialState::kFail;
    {
      SqliteDb db(path);
      Statement(db, "UPDATE trial_heartbeats SET heartbeat = datetime('now', '-120 seconds')").run();
    }
    storage.finish_trial(b.id, fail);  // finished trials are never stale
    CHECK(storage.stale_trials(study.id, 60) == std::vector<int64_t>{a.id});
    (void)c;
  }
  remove_database(path);
}

}  // namespace
}  // namespace hpo

namespace hpo {
namespace {

TEST_CASE("trial numbers count each study's own trials, however studies interleave") {
  const std::string path = "/tmp/hpo_numbers_test_" + std::to_string(::getpid()) + ".db";
  std::remove(path.c_str());
  {
    SqliteStorage storage(path);
    const auto a = storage.get_or_create_study("a", Direction::kMaximize);
    const auto b = storage.get_or_create_study("b", Direction::kMaximize);
    std::vector<int> numbers_a, numbers_b;
    for (int i = 0; i < 5; ++i) {
      numbers_a.push_back(storage.create_trial(a.id, {}).number);
      if (i % 2 == 0) numbers_b.push_back(storage.create_trial(b.id, {}).number);
    }
    CHECK(numbers_a == std::vector<int>{0, 1, 2, 3, 4});
    CHECK(numbers_b == std::vector<int>{0, 1, 2});
    const auto c = storage.get_or_create_study("c", Direction::kMaximize);
    CHECK(storage.create_trial(c.id, {}).number == 0);  // a study without trials starts at 0
  }
  remove_database(path);
}

TEST_CASE("create_trial stores attributes made from the new trial's number, and its first beat") {
  const std::string path = "/tmp/hpo_derived_test_" + std::to_string(::getpid()) + ".db";
  std::remove(path.c_str());
  {
    SqliteStorage storage(path);
    const auto study = storage.get_or_create_study("s", Direction::kMaximize);
    storage.create_trial(study.id, {});  // number 0, no beat
    NewTrial t = sample_trial(1);
    t.heartbeat = true;
    t.derived_system_attrs = [](const TrialRecord& created) {
      return Attrs{{"hpo:trial_dir", "runs/trial_" + std::to_string(created.number)},
                   {"hpo:id", created.id}};
    };
    const auto created = storage.create_trial(study.id, t);
    CHECK(created.number == 1);
    CHECK(created.system_attrs.at("hpo:trial_dir") == "runs/trial_1");
    CHECK(created.system_attrs.at("hpo:pid") == 1001);  // the fixed ones stay
    const auto stored = storage.trial(created.id);
    REQUIRE(stored);
    CHECK(stored->system_attrs.at("hpo:trial_dir") == "runs/trial_1");
    CHECK(stored->system_attrs.at("hpo:id") == created.id);
    CHECK(stored->system_attrs.at("hpo:pid") == 1001);
    // Only the trial created with a heartbeat has one (any beat is older than -1 s).
    CHECK(storage.stale_trials(study.id, -1) == std::vector<int64_t>{created.id});
  }
  remove_database(path);
}

TEST_CASE("create_trial makes params from the number it reserves, in its transaction") {
  TempDir dir;
  SqliteStorage storage(dir.file("s.db"));
  const auto study = storage.get_or_create_study("s", Direction::kMaximize);
  storage.create_trial(study.id, {});  // number 0
  NewTrial t;
  t.derived_params = [](int number) {
    return std::vector<StoredParam>{{"layers", kLayers, 2.0 + 3 * number}};
  };
  const auto created = storage.create_trial(study.id, t);
  REQUIRE(created.number == 1);
  CHECK(same_params(created.params, {{"layers", kLayers, 5.0}}));
  CHECK(same_params(storage.trial(created.id)->params, {{"layers", kLayers, 5.0}}));
  // A made param outside its distribution fails the whole create.
  t.derived_params = [](int) { return std::vector<StoredParam>{{"batch", kBatch, 3.0}}; };
  CHECK_THROWS_AS(storage.create_trial(study.id, t), StorageError);
  CHECK(storage.trials(study.id).size() == 2);
}

TEST_CASE("finish_trial replaces param values with those that ran, inside their distributions") {
  TempDir dir;
  SqliteStorage storage(dir.file("s.db"));
  const auto study = storage.get_or_create_study("s", Direction::kMaximize);
  const auto t = storage.create_trial(study.id, sample_trial(0));  // batch index 0
  TrialOutcome bad{TrialState::kComplete, 1.0, {}, {}};
  bad.params = {{"batch", kBatch, 7.0}};  // no such choice
  CHECK_THROWS_AS(storage.finish_trial(t.id, bad), StorageError);
  bad.params = {{"nope", kBatch, 1.0}};  // no such param
  CHECK_THROWS_AS(storage.finish_trial(t.id, bad), StorageError);
  CHECK(storage.trial(t.id)->state == TrialState::kRunning);  // nothing written

  TrialOutcome ran{TrialState::kComplete, 1.0, {}, {}};
  ran.params = {{"batch", kBatch, 2.0}};
  REQUIRE(storage.finish_trial(t.id, ran));
  std::vector<StoredParam> expected = sample_trial(0).params;
  expected[4].internal = 2.0;
  CHECK(same_params(storage.trial(t.id)->params, expected));
}

TEST_CASE("trials_changed returns new trials and the ones asked about, nothing else") {
  const std::string path = "/tmp/hpo_changed_test_" + std::to_string(::getpid()) + ".db";
  std::remove(path.c_str());
  {
    SqliteStorage storage(path);
    const auto s = storage.get_or_create_study("s", Direction::kMaximize);
    const auto other = storage.get_or_create_study("other", Direction::kMaximize);
    const auto a = storage.create_trial(s.id, {});
    const auto b = storage.create_trial(s.id, {});
    storage.create_trial(other.id, {});  // another study's trial is never returned
    const auto c = storage.create_trial(s.id, {});
    auto ids = [](const std::vector<TrialRecord>& ts) {
      std::vector<int64_t> out;
      for (const auto& t : ts) out.push_back(t.id);
      return out;
    };
    CHECK(ids(storage.trials_changed(s.id, 0, {})) == std::vector<int64_t>{a.id, b.id, c.id});
    CHECK(ids(storage.trials_changed(s.id, b.id, {})) == std::vector<int64_t>{c.id});
    CHECK(ids(storage.trials_changed(s.id, c.id, {a.id})) == std::vector<int64_t>{a.id});
    CHECK(storage.trials_changed(s.id, c.id, {}).empty());
  }
  remove_database(path);
}

}  // namespace
}  // namespace hpo
