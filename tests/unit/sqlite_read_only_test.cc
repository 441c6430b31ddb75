#include "hpo/storage/sqlite_read_only.h"

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "hpo/storage/optuna_schema.h"
#include "hpo/storage/sqlite_db.h"
#include "hpo/storage/sqlite_storage.h"
#include "hpo/storage/storage.h"
#include "temp_dir.h"

namespace hpo {
namespace {

// A study database made the way hpo run makes one (WAL mode), closed.
std::string study_database(const TempDir& dir, const std::string& name) {
  const std::string path = dir.path(name);
  SqliteStorage(path).get_or_create_study("s", Direction::kMinimize);
  return path;
}

int64_t count_studies(const std::string& uri) {
  SqliteDb db(SqliteDb::ReadOnlyUri{uri});
  Statement st(db, "SELECT COUNT(*) FROM studies");
  REQUIRE(st.step());
  return st.int64(0);
}

TEST_CASE("a read-only open of a WAL database reads it as immutable only while no writer has it") {
  TempDir dir;
  const std::string path = study_database(dir, "hpo.db");
  REQUIRE_FALSE(std::filesystem::exists(path + "-wal"));
  CHECK(sqlite_read_only_uri(path) == "file://" + path + "?immutable=1");
  CHECK(count_studies(sqlite_read_only_uri(path)) == 1);

  SqliteStorage writer(path);  // a writer's connection keeps the -wal file
  writer.get_or_create_study("t", Direction::kMinimize);
  REQUIRE(std::filesystem::exists(path + "-wal"));
  CHECK(sqlite_read_only_uri(path) == "file://" + path + "?mode=ro");
  CHECK(count_studies(sqlite_read_only_uri(path)) == 2);  // "t" is still in the WAL
}

TEST_CASE("a rollback-journal database is opened read-only, never immutable") {
  TempDir dir;
  const std::string path = dir.path("optuna.db");
  {
    SqliteDb db(path);
    db.exec("CREATE TABLE studies (study_id INTEGER PRIMARY KEY)");
    db.exec("INSERT INTO studies DEFAULT VALUES");
  }
  CHECK(sqlite_read_only_uri(path) == "file://" + path + "?mode=ro");
  CHECK(count_studies(sqlite_read_only_uri(path)) == 1);
}

TEST_CASE("a path with URI characters in it names the same file") {
  TempDir dir;
  const std::string path = study_database(dir, "a?b%25c#d.db");
  const std::string uri = sqlite_read_only_uri(path);
  CHECK(uri.find("a%3Fb%2525c%23d.db?immutable=1") != std::string::npos);
  CHECK(count_studies(uri) == 1);
  // "//x" is a path too (sqlite://///x.db); as "file://x" x would be a host.
  const std::string doubled = "/" + path;
  CHECK(sqlite_read_only_uri(doubled).rfind("file:///", 0) == 0);
  CHECK(count_studies(sqlite_read_only_uri(doubled)) == 1);
}

TEST_CASE("a read-only connection writes nothing") {
  TempDir dir;
  const std::string path = study_database(dir, "hpo.db");
  SqliteDb db(SqliteDb::ReadOnlyUri{sqlite_read_only_uri(path)});
  CHECK_THROWS_AS(db.exec("INSERT INTO studies (study_name) VALUES ('x')"), SqliteError);
  CHECK(count_studies(sqlite_read_only_uri(path)) == 1);
}

TEST_CASE("read-only, an empty file is not a study database, and nothing creates one") {
  TempDir dir;
  const std::string path = dir.path("empty.db");
  std::ofstream(path).close();
  SqliteDb db(SqliteDb::ReadOnlyUri{sqlite_read_only_uri(path)});
  CHECK_THROWS_WITH_AS(check_optuna_schema(db), doctest::Contains("no tables"), StorageError);
  CHECK(std::filesystem::file_size(path) == 0);
}

TEST_CASE("a read command's open of a writable empty file creates nothing in it") {
  // hpo status on a 0-byte .db wrote Optuna's whole schema (114 KB) into it.
  TempDir dir;
  const std::string path = dir.path("empty.db");
  std::ofstream(path).close();
  CHECK_THROWS_WITH_AS(SqliteStorage(path, std::chrono::seconds(10), kNewestRevision,
                                     SqliteStorage::Access::kReadOnlyIfNeeded),
                       doctest::Contains("no tables"), StorageError);
  CHECK(std::filesystem::file_size(path) == 0);
  // A study database keeps its journal mode: a read command switches none to WAL.
  const std::string journal = dir.path("journal.db");
  {
    SqliteDb db(journal);
    ensure_optuna_schema(db, kNewestRevision);
  }
  SqliteStorage(journal, std::chrono::seconds(10), kNewestRevision,
                SqliteStorage::Access::kReadOnlyIfNeeded)
      .find_study("s");
  SqliteDb db(SqliteDb::ReadOnlyUri{sqlite_read_only_uri(journal)});
  Statement mode(db, "PRAGMA journal_mode");
  REQUIRE(mode.step());
  CHECK(mode.text(0) == "delete");
}

SqliteStorage read_only(const std::string& path) {
  return SqliteStorage(path, std::chrono::seconds(10), kNewestRevision,
                       SqliteStorage::Access::kReadOnly);
}

void add_study(const std::string& path, const std::string& name) {
  SqliteStorage(path).get_or_create_study(name, Direction::kMinimize);
}

TEST_CASE("a file's stamp stays while nothing writes it, and moves when a run writes it") {
  TempDir dir;
  const std::string path = study_database(dir, "hpo.db");
  const FileStamp idle = sqlite_file_stamp(path);
  CHECK(idle.size > 0);
  CHECK_FALSE(idle.wal);
  CHECK(sqlite_file_stamp(path) == idle);
  count_studies(sqlite_read_only_uri(path));  // an immutable read changes nothing
  CHECK(sqlite_file_stamp(path) == idle);
  {
    SqliteStorage writer(path);  // while a run has it open, its -wal is there
    CHECK(sqlite_file_stamp(path).wal);
    CHECK(sqlite_file_stamp(path) != idle);
    const int64_t id = writer.get_or_create_study("t", Direction::kMinimize).id;
    writer.set_study_user_attr(id, "notes", std::string(64 * 1024, 'x'));
  }
  // Gone again, and its checkpoint grew the file: the stamp says so, however
  // coarse the file system's clock.
  const FileStamp after = sqlite_file_stamp(path);
  CHECK_FALSE(after.wal);
  CHECK(after.size > idle.size);
  CHECK(after != idle);
  CHECK(after.recent());
  CHECK(sqlite_file_stamp(dir.path("absent.db")).size == -1);
}

TEST_CASE("an immutable reader sees what writers stored after it opened") {
  TempDir dir;
  const std::string path = study_database(dir, "hpo.db");
  SqliteStorage reader = read_only(path);
  REQUIRE(reader.list_studies().size() == 1);
  REQUIRE_FALSE(std::filesystem::exists(path + "-shm"));  // it is immutable: no -shm of its own
  // A run that came and went: its checkpoint rewrote the file, its -wal is gone.
  add_study(path, "t");
  REQUIRE_FALSE(std::filesystem::exists(path + "-wal"));
  CHECK(reader.list_studies().size() == 2);
  CHECK(reader.find_study("t").has_value());
  // A run that is still writing: "u" is only in its -wal.
  SqliteStorage writer(path);
  writer.get_or_create_study("u", Direction::kMinimize);
  CHECK(reader.list_studies().size() == 3);
}

TEST_CASE("an immutable reader's every read succeeds and is whole while writers come and go") {
  TempDir dir;
  const std::string path = study_database(dir, "hpo.db");
  SqliteStorage reader = read_only(path);
  constexpr int kWriters = 30;
  std::atomic<bool> done{false};
  std::thread writers([&] {
    for (int i = 0; i < kWriters; ++i) add_study(path, "w" + std::to_string(i));
    done = true;
  });
  size_t last = 1;
  int reads = 0;
  while (!done) {
    const auto studies = reader.list_studies();  // throws on a torn read
    CHECK(studies.size() >= last);
    last = studies.size();
    ++reads;
  }
  writers.join();
  MESSAGE(reads << " reads beside " << kWriters << " writers");
  CHECK(reader.list_studies().size() == 1 + kWriters);
}

}  // namespace
}  // namespace hpo
