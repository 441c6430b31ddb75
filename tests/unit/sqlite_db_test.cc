#include "hpo/storage/sqlite_db.h"

#include <doctest/doctest.h>

#include "tests/unit/temp_dir.h"

namespace hpo {
namespace {

int64_t count_where(SqliteDb& db, int64_t at_least) {
  Statement st(db, "SELECT COUNT(*) FROM t WHERE x >= ?1");
  st.bind(1, at_least);
  REQUIRE(st.step());
  return st.int64(0);
}

TEST_CASE("a statement made again from its SQL starts afresh: first row, new bindings") {
  TempDir dir;
  SqliteDb db(dir.path() + "/db.sqlite");
  db.exec("CREATE TABLE t (x INTEGER)");
  for (int i = 0; i < 5; ++i) Statement(db, "INSERT INTO t (x) VALUES (?1)").bind(1, i).run();

  CHECK(count_where(db, 0) == 5);
  CHECK(count_where(db, 3) == 2);  // the cached statement, bound anew
  {
    Statement rows(db, "SELECT x FROM t ORDER BY x");
    REQUIRE(rows.step());
    CHECK(rows.int64(0) == 0);
    REQUIRE(rows.step());
    CHECK(rows.int64(0) == 1);  // left mid-way
  }
  Statement rows(db, "SELECT x FROM t ORDER BY x");
  REQUIRE(rows.step());
  CHECK(rows.int64(0) == 0);  // not where the last one stopped
}

TEST_CASE("the same SQL twice at once gives two independent statements") {
  TempDir dir;
  SqliteDb db(dir.path() + "/db.sqlite");
  db.exec("CREATE TABLE t (x INTEGER)");
  for (int i = 0; i < 3; ++i) Statement(db, "INSERT INTO t (x) VALUES (?1)").bind(1, i).run();
  const std::string sql = "SELECT x FROM t WHERE x >= ?1 ORDER BY x";
  Statement outer(db, sql);
  outer.bind(1, 1);
  int outer_rows = 0;
  while (outer.step()) {
    ++outer_rows;
    Statement inner(db, sql);
    inner.bind(1, 0);
    int inner_rows = 0;
    while (inner.step()) ++inner_rows;
    CHECK(inner_rows == 3);
  }
  CHECK(outer_rows == 2);
}

TEST_CASE("a statement that does not compile is an error, and the connection goes on") {
  TempDir dir;
  SqliteDb db(dir.path() + "/db.sqlite");
  CHECK_THROWS_AS(Statement(db, "SELEC 1"), SqliteError);
  Statement ok(db, "SELECT 1");
  REQUIRE(ok.step());
  CHECK(ok.int64(0) == 1);
}

}  // namespace
}  // namespace hpo
