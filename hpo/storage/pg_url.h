// PostgreSQL URLs as Optuna users write them for SQLAlchemy
// (postgresql://USER:PASSWORD@HOST:PORT/DB, also postgresql+psycopg2://...)
// and as libpq takes them (also postgres://), split into what libpq connects
// with and what messages may show. They are read as libpq reads them: the
// user and password end at the first '@' before any '/' (so a password may
// hold '#', '?' or ':', but an '@' must be written %40), and a password may
// also come as ?password=. The password never appears in a message, a log
// line or `hpo status`.
#ifndef HPO_STORAGE_PG_URL_H_
#define HPO_STORAGE_PG_URL_H_

#include <string>
#include <vector>

namespace hpo {

struct PgUrl {
  std::string conninfo;  // a libpq URI: postgresql://USER:PASSWORD@HOST:PORT/DB?PARAMS
  std::string masked;  // the URL as given, each password replaced by ***
  // The passwords as written and as libpq decodes them, for masking what
  // libpq and the server say; empty strings are left out.
  std::vector<std::string> secrets;
};

// Whether `url` names a PostgreSQL database: postgresql://, postgres:// (as
// libpq accepts it) or postgresql+DRIVER:// (SQLAlchemy's form; the driver
// is ignored).
bool is_pg_url(const std::string& url);

// Throws StorageError, naming the masked URL and what was expected, for a
// URL without a database name, with a malformed scheme, or with an '@' left
// over after the password's (libpq would take it for part of the host and
// print it). The host may be empty and given as ?host=/socket/dir instead,
// and the database as ?dbname=, as libpq allows. A time zone set in
// ?options= is dropped from the conninfo (see pg_client_env.h).
PgUrl parse_pg_url(const std::string& url);

// `text` with every occurrence of the URL's passwords replaced by ***, for
// messages that quote libpq or the server.
std::string mask_password(const PgUrl& url, std::string text);

}  // namespace hpo

#endif  // HPO_STORAGE_PG_URL_H_
