// Runs hpo's statements as prepared statements of the session: the server
// parses each of them once per connection (and, after a few runs, plans it
// once) rather than on every call, which was most of the server's CPU per
// trial. Parameters are sent as with exec_params (text, types inferred by
// the server), so the statements mean the same.
#ifndef HPO_STORAGE_PG_PREPARED_H_
#define HPO_STORAGE_PG_PREPARED_H_

#include <pqxx/pqxx>
#include <string>
#include <utility>

namespace hpo {

// The session's name for `sql`, defined on the connection (a no-op once it
// is): the server prepares it on its first run. A new connection, after a
// lost session, starts with none.
std::string prepared_name(pqxx::transaction_base& tx, const std::string& sql);

template <typename... Args>
pqxx::result exec_prepared_sql(pqxx::transaction_base& tx, const std::string& sql, Args&&... args) {
  return tx.exec_prepared(prepared_name(tx, sql), std::forward<Args>(args)...);
}

// As exec_params0: throws unless no row came back.
template <typename... Args>
pqxx::result exec_prepared_sql0(pqxx::transaction_base& tx, const std::string& sql,
                                Args&&... args) {
  return tx.exec_prepared0(prepared_name(tx, sql), std::forward<Args>(args)...);
}

// As exec_params1: throws unless exactly one row came back.
template <typename... Args>
pqxx::row exec_prepared_sql1(pqxx::transaction_base& tx, const std::string& sql, Args&&... args) {
  return tx.exec_prepared1(prepared_name(tx, sql), std::forward<Args>(args)...);
}

}  // namespace hpo

#endif  // HPO_STORAGE_PG_PREPARED_H_
