// PostgreSQL URLs read as libpq reads them, and the password hidden in every
// form a URL can take: what hpo shows of an accepted URL, the error for a
// refused one, and libpq's own messages.
#include "hpo/storage/pg_url.h"

#include <doctest/doctest.h>

#include <string>

#include "hpo/storage/open_storage.h"
#include "hpo/storage/storage.h"
#include "hpo/storage/url_mask.h"

namespace hpo {
namespace {

// Each shape of URL that libpq or SQLAlchemy accepts, with the password in it.
struct Shape {
  const char* url;
  const char* password;  // as the test looks for it in the output
  const char* masked;  // what hpo shows
};

const Shape kAccepted[] = {
    {"postgresql://alice:pa#ss@h/db", "pa#ss", "postgresql://alice:***@h/db"},
    {"postgresql://alice:pa?ss@h:5433/db", "pa?ss", "postgresql://alice:***@h:5433/db"},
    {"postgresql://alice:pa:ss@h/db", "pa:ss", "postgresql://alice:***@h/db"},
    {"postgresql://alice:it'sme@h/db", "it'sme", "postgresql://alice:***@h/db"},
    {"postgresql://alice:s3cr%40t@h/db", "s3cr%40t", "postgresql://alice:***@h/db"},
    {"postgresql://alice@h/db?password=hunter2&sslmode=require", "hunter2",
     "postgresql://alice@h/db?password=***&sslmode=require"},
    {"postgresql://alice@h/db?sslmode=require&Password=hunter2", "hunter2",
     "postgresql://alice@h/db?sslmode=require&Password=***"},
    {"postgres://alice:hunter2@h/db", "hunter2", "postgres://alice:***@h/db"},
    {"postgresql+psycopg2://alice:hunter2@/db?host=/run/pg", "hunter2",
     "postgresql+psycopg2://alice:***@/db?host=/run/pg"},
    {"postgresql://alice:hunter2@h?dbname=db", "hunter2", "postgresql://alice:***@h?dbname=db"},
};

TEST_CASE("accepted URLs: libpq gets them whole, messages never show the password") {
  for (const Shape& s : kAccepted) {
    CAPTURE(std::string(s.url));
    const PgUrl url = parse_pg_url(s.url);
    CHECK(url.masked == s.masked);
    CHECK(shown_url(s.url) == s.masked);
    CHECK(url.masked.find(s.password) == std::string::npos);
    CHECK(mask_password(url, std::string("FATAL: ") + s.password).find(s.password) ==
          std::string::npos);
    const std::string rest = std::string(s.url).substr(std::string(s.url).find("://"));
    CHECK(url.conninfo == "postgresql" + rest);
  }
  // libpq decodes the password: its messages may quote either form.
  const PgUrl encoded = parse_pg_url("postgresql://alice:s3cr%40t@h/db");
  CHECK(mask_password(encoded, "s3cr@t and s3cr%40t") == "*** and ***");
}

const Shape kRefused[] = {
    // An unencoded '@': libpq splits at the first and would print the rest.
    {"postgresql://alice:p@ss@h/db", "p@ss", "postgresql://alice:***@h/db"},
    {"postgresql://alice:pa/ss@h/db", "pa/ss", "postgresql://alice:***@h/db"},
    {"postgresql://alice:hunter2@h", "hunter2", "postgresql://alice:***@h"},
    {"postgresql:/alice:hunter2@h/db", "hunter2", "postgresql:/alice:***@h/db"},
    {"postgresq://alice:hunter2@h/db", "hunter2", "postgresq://alice:***@h/db"},
    {"postgresql+://alice:hunter2@h/db", "hunter2", "postgresql+://alice:***@h/db"},
    {"mysql://alice:hunter2@h/db", "hunter2", "mysql://alice:***@h/db"},
    {"alice:hunter2@h/db", "hunter2", "alice:***@h/db"},
    {"host=h user=alice password=hunter2 dbname=db", "hunter2",
     "host=h user=alice password=*** dbname=db"},
    {"host=h password='hunter2 x' dbname=db", "hunter2", "host=h password=*** dbname=db"},
};

TEST_CASE("refused URLs are named with the password masked") {
  for (const Shape& s : kRefused) {
    CAPTURE(std::string(s.url));
    CHECK(shown_url(s.url) == s.masked);
    std::string message;
    try {
      open_storage(s.url, OpenMode::kMustExist);
    } catch (const StorageError& e) {
      message = e.what();
    }
    CAPTURE(message);
    CHECK(message.find(s.masked) != std::string::npos);
    CHECK(message.find(s.password) == std::string::npos);
  }
}

TEST_CASE("a time zone in the URL's options is dropped, other options kept") {
  const PgUrl url = parse_pg_url(
      "postgresql://u@h/db?options=-c%20TimeZone%3DEtc/GMT-14%20-c%20geqo%3Doff&sslmode=disable");
  CHECK(url.conninfo == "postgresql://u@h/db?options=-c%20geqo%3Doff&sslmode=disable");
  CHECK(parse_pg_url("postgresql://u@h/db?options=--timezone%3DUTC").conninfo ==
        "postgresql://u@h/db");
}

TEST_CASE("masked_password_params") {
  CHECK(masked_password_params("a=1&password=x&b=2") == "a=1&password=***&b=2");
  CHECK(masked_password_params("pass%77ord=x") == "pass%77ord=***");
  CHECK(masked_password_params("passwords=x") == "passwords=x");
}

}  // namespace
}  // namespace hpo
