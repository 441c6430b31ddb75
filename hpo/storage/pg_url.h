// PostgreSQL URLs as Optuna users write them for SQLAlchemy
// (postgresql://USER:PASSWORD@HOST:PORT/DB, also postgresql+psycopg2://...),
// split into what libpq connects with and what messages may show: the
// password never appears in a message, a log line or `hpo status`.
#ifndef HPO_STORAGE_PG_URL_H_
#define HPO_STORAGE_PG_URL_H_

#include <string>

namespace hpo {

struct PgUrl {
  std::string conninfo;  // a libpq URI: postgresql://USER:PASSWORD@HOST:PORT/DB?PARAMS
  std::string masked;  // the URL as given, its password replaced by ***
  std::string password;  // as written in the URL (maybe percent-encoded); "" if none
};

// Whether `url` names a PostgreSQL database: postgresql:// or
// postgresql+DRIVER:// (SQLAlchemy's form; the driver is ignored).
bool is_pg_url(const std::string& url);

// Throws StorageError, naming the masked URL and what was expected, for a
// URL without a database name or with a malformed scheme. The host may be
// empty and given as ?host=/socket/dir instead, as libpq allows.
PgUrl parse_pg_url(const std::string& url);

// `text` with every occurrence of the URL's password replaced by ***, for
// messages that quote libpq or the server.
std::string mask_password(const PgUrl& url, std::string text);

}  // namespace hpo

#endif  // HPO_STORAGE_PG_URL_H_
