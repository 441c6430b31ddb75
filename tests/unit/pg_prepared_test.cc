// hpo's PostgreSQL statements run prepared: parsed once per session, run
// again with new parameters, and prepared anew on a new connection.
#include "hpo/storage/pg_prepared.h"

#include <doctest/doctest.h>

#include <pqxx/pqxx>
#include <string>

#include "tests/unit/storage_contract.h"

namespace hpo {
namespace {

int prepared_count(pqxx::connection& c, const std::string& sql) {
  pqxx::work tx(c);
  return tx.exec_params1("SELECT COUNT(*) FROM pg_prepared_statements WHERE statement = $1", sql)[0]
      .as<int>();
}

TEST_CASE("a statement is prepared once per session and runs with each call's parameters" *
          doctest::test_suite("postgres")) {
  if (!test_pg_url()) return;
  PgBackend db;
  const std::string sql = "SELECT $1::integer + 1";
  pqxx::connection c(db.url());
  CHECK(prepared_count(c, sql) == 0);
  for (int i = 0; i < 3; ++i) {
    pqxx::work tx(c);
    CHECK(exec_prepared_sql1(tx, sql, i)[0].as<int>() == i + 1);
    tx.commit();
  }
  CHECK(prepared_count(c, sql) == 1);

  // A rolled-back transaction leaves the statement prepared: the session
  // keeps it, and the next call runs it without preparing it again.
  {
    pqxx::work tx(c);
    CHECK(exec_prepared_sql(tx, sql, 7)[0][0].as<int>() == 8);
  }
  CHECK(prepared_count(c, sql) == 1);

  pqxx::connection other(db.url());  // as after a lost session
  CHECK(prepared_count(other, sql) == 0);
  pqxx::work tx(other);
  CHECK(exec_prepared_sql1(tx, sql, 41)[0].as<int>() == 42);
}

}  // namespace
}  // namespace hpo
