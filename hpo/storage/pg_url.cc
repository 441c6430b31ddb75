#include "hpo/storage/pg_url.h"

#include <algorithm>

#include "hpo/storage/storage.h"

namespace hpo {

namespace {

constexpr const char kScheme[] = "postgresql";
constexpr const char kExpected[] = "expected postgresql://USER:PASSWORD@HOST:PORT/DATABASE";

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The URL with the password of "scheme://user:password@..." masked. Only
// the authority (up to the first '/', '?' or '#' after "://") is searched,
// and the password ends at its last '@', as libpq reads it.
std::string masked_url(const std::string& url, size_t authority, std::string* password) {
  const size_t end = std::min(url.find_first_of("/?#", authority), url.size());
  const size_t at = url.rfind('@', end);
  if (at == std::string::npos || at < authority) return url;
  const size_t colon = url.find(':', authority);
  if (colon == std::string::npos || colon > at) return url;
  *password = url.substr(colon + 1, at - colon - 1);
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

}  // namespace

bool is_pg_url(const std::string& url) {
  return starts_with(url, std::string(kScheme) + "://") ||
         starts_with(url, std::string(kScheme) + "+");
}

PgUrl parse_pg_url(const std::string& url) {
  const size_t sep = url.find("://");
  PgUrl out;
  out.masked = sep == std::string::npos ? url : masked_url(url, sep + 3, &out.password);
  const std::string scheme = url.substr(0, sep);
  const bool driver_ok = scheme == kScheme || (starts_with(scheme, std::string(kScheme) + "+") &&
                                               scheme.size() > sizeof kScheme);
  if (sep == std::string::npos || !driver_ok) {
    throw StorageError(out.masked + ": not a PostgreSQL URL; " + kExpected);
  }
  const std::string rest = url.substr(sep + 3);
  const size_t slash = rest.find('/');
  const size_t query = rest.find('?');
  if (slash == std::string::npos || (query != std::string::npos && query < slash) ||
      rest.substr(slash + 1, query == std::string::npos ? std::string::npos : query - slash - 1)
          .empty()) {
    throw StorageError(out.masked + ": no database named; " + kExpected +
                       " (or postgresql://USER@/DATABASE?host=/socket/dir)");
  }
  out.conninfo = std::string(kScheme) + "://" + rest;
  return out;
}

std::string mask_password(const PgUrl& url, std::string text) {
  if (url.password.empty()) return text;
  for (size_t at = text.find(url.password); at != std::string::npos;
       at = text.find(url.password, at + 3)) {
    text.replace(at, url.password.size(), "***");
  }
  return text;
}

}  // namespace hpo
