#include "hpo/storage/pg_prepared.h"

#include <cstdio>
#include <functional>

namespace hpo {

std::string prepared_name(pqxx::transaction_base& tx, const std::string& sql) {
  // Named by a hash of the text. Two texts with one hash would not run the
  // wrong statement: libpqxx refuses to redefine a name with other SQL.
  char name[32];
  std::snprintf(name, sizeof name, "hpo_%016zx", std::hash<std::string>{}(sql));
  tx.conn().prepare(name, sql);
  return name;
}

}  // namespace hpo
