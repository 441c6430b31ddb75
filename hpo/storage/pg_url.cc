#include "hpo/storage/pg_url.h"

#include <algorithm>
#include <cctype>

#include "hpo/storage/pg_client_env.h"
#include "hpo/storage/storage.h"
#include "hpo/storage/url_mask.h"
#include "hpo/text/ascii.h"

namespace hpo {

namespace {

constexpr const char kExpected[] = "expected postgresql://USER:PASSWORD@HOST:PORT/DATABASE";

bool pg_scheme(const std::string& scheme) {
  return scheme == "postgresql" || scheme == "postgres" ||
         (scheme.compare(0, 11, "postgresql+") == 0 && scheme.size() > 11);
}

void add_secret(PgUrl& url, const std::string& raw) {
  for (const std::string& s : {raw, percent_decoded(raw)}) {
    if (!s.empty() && std::find(url.secrets.begin(), url.secrets.end(), s) == url.secrets.end())
      url.secrets.push_back(s);
  }
}

// Percent-encodes all but RFC 3986's unreserved characters, as a query value.
std::string percent_encoded(const std::string& s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The query's parameters as libpq reads them, with each password kept as a
// secret and a time zone in `options` dropped: heartbeats must be kept in the
// server's zone, whatever the URL asks for (pg_client_env.h says why).
// Sets *names_database when a `dbname` parameter is given.
std::string neutral_query(const std::string& query, PgUrl& url, bool* names_database) {
  std::string kept;
  size_t i = 0;
  while (i <= query.size() && !query.empty()) {
    const size_t amp = std::min(query.find('&', i), query.size());
    const std::string param = query.substr(i, amp - i);
    i = amp + 1;
    const size_t eq = param.find('=');
    const std::string key = percent_decoded(param.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : param.substr(eq + 1);
    std::string out = param;
    // Masked in any case, as masked_password_params does.
    if (ascii_lower(key) == "password") add_secret(url, value);
    if (key == "dbname" && !value.empty()) *names_database = true;
    if (key == "options") {
      const std::string options = options_without_time_zone(percent_decoded(value));
      out = options.empty() ? "" : "options=" + percent_encoded(options);
    }
    if (!out.empty()) kept += (kept.empty() ? "" : "&") + out;
  }
  return kept;
}

[[noreturn]] void refuse(const std::string& url, const std::string& why) {
  throw StorageError(masked_url(url) + ": " + why);
}

}  // namespace

bool is_pg_url(const std::string& url) {
  const size_t sep = url.find("://");
  return sep != std::string::npos && pg_scheme(url.substr(0, sep));
}

PgUrl parse_pg_url(const std::string& url) {
  if (!is_pg_url(url)) refuse(url, std::string("not a PostgreSQL URL; ") + kExpected);
  const size_t sep = url.find("://");
  const std::string rest = url.substr(sep + 3);
  PgUrl out;
  // libpq: the user info ends at the first '@' before any '/'.
  const size_t info_end = rest.find_first_of("@/");
  size_t host = 0;
  std::string shown_info;
  if (info_end != std::string::npos && rest[info_end] == '@') {
    const std::string info = rest.substr(0, info_end);
    const size_t colon = info.find(':');
    if (colon != std::string::npos) add_secret(out, info.substr(colon + 1));
    shown_info = (colon == std::string::npos ? info : info.substr(0, colon + 1) + "***") + "@";
    host = info_end + 1;
  }
  // Any other '@' is most likely a password's, cut where libpq cuts it: libpq
  // would take the rest for a host or database and print it. Refused, masked.
  if (rest.find('@', host) != std::string::npos) {
    refuse(url,
           "an '@' where libpq does not read it as the end of USER:PASSWORD; write '@' as %40 "
           "(and '/' as %2F) in a user name, password or parameter");
  }
  const size_t path = std::min(rest.find_first_of("/?", host), rest.size());
  const size_t query = std::min(rest.find('?', path), rest.size());
  const std::string db = path < query ? rest.substr(path + 1, query - path - 1) : "";
  bool names_database = !db.empty();
  const std::string params =
      query < rest.size() ? neutral_query(rest.substr(query + 1), out, &names_database) : "";
  if (!names_database) {
    refuse(url, std::string("no database named; ") + kExpected +
                    " (or postgresql://USER@/DATABASE?host=/socket/dir)");
  }
  const std::string authority_and_path = rest.substr(host, query - host);
  out.conninfo = "postgresql://" + rest.substr(0, query) + (params.empty() ? "" : "?" + params);
  out.masked = url.substr(0, sep + 3) + shown_info + authority_and_path +
               (query < rest.size() ? "?" + masked_password_params(rest.substr(query + 1)) : "");
  return out;
}

std::string mask_password(const PgUrl& url, std::string text) {
  std::vector<std::string> secrets = url.secrets;
  // The longest first, so that a secret inside another is not masked half.
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& secret : secrets) {
    for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3))
      text.replace(at, secret.size(), "***");
  }
  return text;
}

}  // namespace hpo
