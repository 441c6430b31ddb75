// PostgreSQL storage beyond the shared contract (storage_contract_test.cc):
// URLs and masked passwords, schema revisions, time zones, and retries after
// a connection lost while COMMIT was in flight.
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "hpo/storage/open_storage.h"
#include "hpo/storage/pg_client_env.h"
#include "hpo/storage/pg_url.h"
#include "tests/unit/storage_contract.h"

namespace hpo {
namespace {

TEST_CASE("PostgreSQL URLs: SQLAlchemy's forms, the password masked everywhere") {
  CHECK(is_pg_url("postgresql://u@h/db"));
  CHECK(is_pg_url("postgresql+psycopg2://u@h/db"));
  CHECK_FALSE(is_pg_url("sqlite:///x.db"));
  CHECK(is_pg_url("postgres://u@h/db"));  // libpq's other scheme

  const PgUrl url =
      parse_pg_url("postgresql+psycopg2://alice:s3cr%40t@db.example:5433/hpo?sslmode=require");
  CHECK(url.conninfo == "postgresql://alice:s3cr%40t@db.example:5433/hpo?sslmode=require");
  CHECK(url.masked == "postgresql+psycopg2://alice:***@db.example:5433/hpo?sslmode=require");
  CHECK(mask_password(url, "FATAL: bad password s3cr%40t") == "FATAL: bad password ***");

  CHECK(parse_pg_url("postgresql://bob@h/db").masked == "postgresql://bob@h/db");
  CHECK(parse_pg_url("postgresql://postgres@/db?host=/tmp/x").conninfo ==
        "postgresql://postgres@/db?host=/tmp/x");

  for (const char* bad : {"postgresql://bob:hunter2@h", "postgresql://bob:hunter2@h/",
                          "postgresql://bob:hunter2@h?x=1/y", "postgresql+://bob:hunter2@h/db"}) {
    CAPTURE(bad);
    try {
      parse_pg_url(bad);
      FAIL("accepted");
    } catch (const StorageError& e) {
      const std::string message = e.what();
      CHECK(message.find("hunter2") == std::string::npos);
      CHECK(message.find("bob:***@h") != std::string::npos);
      CHECK(message.find("expected postgresql://USER:PASSWORD@HOST:PORT/DATABASE") !=
            std::string::npos);
    }
  }
}

// The test server's socket directory, from HPO_TEST_PG_URL's ?host=.
std::string server_socket_dir() {
  const std::string url = *test_pg_url();
  return url.substr(url.find("host=") + 5);
}

TEST_CASE("a wrong password is refused with the URL masked" * doctest::test_suite("postgres")) {
  if (!test_pg_url()) return;
  PgBackend db;
  db.exec(
      "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'hpo_alice') THEN "
      "CREATE ROLE hpo_alice LOGIN PASSWORD 'right-horse-battery'; END IF; END $$");
  const auto url_as = [&](const std::string& password) {
    return "postgresql://hpo_alice:" + password + "@/" + db.name() + "?host=" + server_socket_dir();
  };
  try {
    open_storage(url_as("wrong-staple-7"));
    FAIL("connected with a wrong password");
  } catch (const StorageError& e) {
    const std::string message = e.what();
    CHECK(message.find("wrong-staple-7") == std::string::npos);
    CHECK(message.find("postgresql://hpo_alice:***@/") != std::string::npos);
    CHECK(message.find("cannot connect") != std::string::npos);
    CHECK(message.find("password authentication failed") != std::string::npos);
  }
  db.exec("GRANT ALL ON SCHEMA public TO hpo_alice");
  auto storage = open_storage(url_as("right-horse-battery"));
  CHECK(storage->url().find("right-horse-battery") == std::string::npos);
  CHECK(storage->url().find("hpo_alice:***@") != std::string::npos);
  CHECK(storage->get_or_create_study("s", Direction::kMaximize).name == "s");
}

TEST_CASE("schema revisions: new at v3.2.0.a, Optuna 3.1's v3.0.0.d kept, then upgraded" *
          doctest::test_suite("postgres")) {
  if (!test_pg_url()) return;
  PgBackend db;
  {
    PgStorage storage(db.url());
    CHECK(storage.schema_revision() == "v3.2.0.a");
    CHECK_FALSE(storage.upgrade_schema());
    storage.get_or_create_study("s", Direction::kMaximize);
  }
  // As Optuna 3.1 leaves it: no index on trials.study_id, revision v3.0.0.d.
  db.exec("DROP INDEX ix_trials_study_id; UPDATE alembic_version SET version_num = 'v3.0.0.d'");
  PgStorage storage(db.url());
  CHECK(storage.schema_revision() == "v3.0.0.d");  // opening does not upgrade
  const auto study = storage.get_or_create_study("s", Direction::kMaximize);
  CHECK(storage.create_trial(study.id, {}).number == 0);
  CHECK(storage.schema_revision() == "v3.0.0.d");
  CHECK(storage.upgrade_schema());
  CHECK(storage.schema_revision() == "v3.2.0.a");
  CHECK_FALSE(storage.upgrade_schema());
  pqxx::connection c(db.url());
  CHECK(pqxx::nontransaction(c)
            .exec("SELECT 1 FROM pg_indexes WHERE indexname = 'trials_study_id_key'")
            .size() == 1);
  CHECK(storage.trials(study.id).size() == 1);
}

TEST_CASE("other revisions and other databases are refused and left as they are" *
          doctest::test_suite("postgres")) {
  if (!test_pg_url()) return;
  PgBackend db;
  PgStorage(db.url()).get_or_create_study("s", Direction::kMaximize);
  db.exec("UPDATE alembic_version SET version_num = 'v2.6.0.a'");
  CHECK_THROWS_WITH_AS(PgStorage(db.url()), doctest::Contains("alembic v2.6.0.a"), StorageError);
  CHECK_THROWS_WITH_AS(PgStorage(db.url()).upgrade_schema(), doctest::Contains("v2.6.0.a"),
                       StorageError);

  PgBackend other;
  other.exec("CREATE TABLE notes (text TEXT)");
  CHECK_THROWS_WITH_AS(PgStorage(other.url()), doctest::Contains("not an Optuna study database"),
                       StorageError);

  PgBackend empty;  // a reading command leaves an empty database empty
  CHECK_THROWS_WITH_AS(open_storage(empty.url(), OpenMode::kMustExist),
                       doctest::Contains("no study tables"), StorageError);
  pqxx::connection c(empty.url());
  CHECK(pqxx::nontransaction(c)
            .exec1("SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'")[0]
            .as<int>() == 0);
}

// Sets the time zone libpq would ask the server for, for the objects made
// while it lives: a host whose PGTZ (or PGOPTIONS) differs from the fleet's.
class SessionTimeZone {
 public:
  SessionTimeZone(const char* variable, const std::string& value) : variable_(variable) {
    setenv(variable, value.c_str(), 1);
  }
  ~SessionTimeZone() { unsetenv(variable_); }

 private:
  const char* variable_;
};

void check_beats_agree(Storage& west, Storage& east);

// Heartbeats are in the session's time zone, as Optuna keeps them; hpo's
// sessions are all in the server's, whatever PGTZ or PGOPTIONS say.
void check_zones_agree(const char* variable, const std::string& west_value,
                       const std::string& east_value) {
  PgBackend db;
  std::unique_ptr<Storage> west, east;
  {
    SessionTimeZone zone(variable, west_value);
    west = db.open();
  }
  {
    SessionTimeZone zone(variable, east_value);
    east = db.open();
  }
  check_beats_agree(*west, *east);
}

// West's fresh beat is fresh to east, and the other way round.
void check_beats_agree(Storage& west_storage, Storage& east_storage) {
  Storage* west = &west_storage;
  Storage* east = &east_storage;
  const auto study = west->get_or_create_study("s", Direction::kMaximize);
  const auto t = west->create_trial(study.id, {});
  west->record_heartbeat(t.id);
  CHECK(east->stale_trials(study.id, 60).empty());
  CHECK(west->stale_trials(study.id, 60).empty());
  east->record_heartbeat(t.id);
  CHECK(west->stale_trials(study.id, 60).empty());
  CHECK(west->stale_trials(study.id, -1) == std::vector<int64_t>{t.id});
}

TEST_CASE("hosts in other time zones agree on heartbeats" * doctest::test_suite("postgres")) {
  if (!test_pg_url()) return;
  SUBCASE("PGTZ") { check_zones_agree("PGTZ", "Etc/GMT+12", "Etc/GMT-14"); }  // UTC-12, UTC+14
  SUBCASE("PGOPTIONS") {
    check_zones_agree("PGOPTIONS", "-c timezone=Etc/GMT+12",
                      "--TimeZone=Etc/GMT-14 -c statement_timeout=0");
  }
}

TEST_CASE("a time zone in the URL's options is ignored as PGTZ is" *
          doctest::test_suite("postgres")) {
  if (!test_pg_url()) return;
  PgBackend db;
  const auto west = open_storage(db.url() + "&options=-c%20TimeZone%3DEtc/GMT%2B12");  // UTC-12
  const auto east = open_storage(db.url() + "&options=--timezone%3DEtc/GMT-14");  // UTC+14
  check_beats_agree(*west, *east);
}

TEST_CASE("PGOPTIONS keeps its settings but the time zone") {
  CHECK(options_without_time_zone("-c timezone=UTC") == "");
  CHECK(options_without_time_zone("-ctimezone=UTC -c search_path=a") == "-c search_path=a");
  CHECK(options_without_time_zone("--timezone=UTC --TimeZone=X -c geqo=off") == "-c geqo=off");
  CHECK(options_without_time_zone("  -c  TIMEZONE=Etc/GMT+12\\ x  -c a=b\\ c ") == "-c a=b\\ c");
  CHECK(options_without_time_zone("-c timezone_abbreviations=India") ==
        "-c timezone_abbreviations=India");
  CHECK(options_without_time_zone("-c application_name=timezone=x") ==
        "-c application_name=timezone=x");
  CHECK(options_without_time_zone("-c") == "-c");
}

// A Unix-socket proxy in front of the test server that can lose a
// connection the way a network does at the worst moment: it passes a
// COMMIT on to the server, lets the server commit, and closes the
// connection before the client hears the answer.
class CommitCutter {
 public:
  CommitCutter() {
    listen_fd_ = socket(AF_UNIX, SOCK_STREAM, 0);
    const sockaddr_un addr = address(dir_.path());
    REQUIRE(bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(listen(listen_fd_, 16) == 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~CommitCutter() {
    stop_ = true;
    thread_.join();
    close(listen_fd_);
  }
  // `url` (a database on the test server) reached through this proxy.
  std::string url(const std::string& url) const {
    return url.substr(0, url.find("host=") + 5) + dir_.path();
  }
  // The next COMMIT reaches the server; its answer never reaches the client.
  void cut_next_commit() { cut_ = true; }
  int cuts() const { return cuts_; }

 private:
  static sockaddr_un address(const std::string& dir) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string path = dir + "/.s.PGSQL.5432";
    REQUIRE(path.size() < sizeof addr.sun_path);
    path.copy(addr.sun_path, path.size());
    return addr;
  }

  // One connection at a time is enough: a PgStorage holds one.
  void serve() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int client = accept(listen_fd_, nullptr, nullptr);
      const int server = socket(AF_UNIX, SOCK_STREAM, 0);
      const sockaddr_un addr = address(server_socket_dir());
      if (connect(server, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0)
        pipe(client, server);
      close(client);
      close(server);
    }
  }

  void pipe(int client, int server) {
    char buf[65536];
    while (!stop_) {
      pollfd p[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
      if (poll(p, 2, 50) <= 0) continue;
      for (int i = 0; i < 2; ++i) {
        if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = read(p[i].fd, buf, sizeof buf);
        if (n <= 0) return;
        const int to = i == 0 ? server : client;
        if (write(to, buf, n) != n) return;
        if (i == 0 && cut_ && std::string(buf, n).find("COMMIT") != std::string::npos) {
          std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the server commits
          cut_ = false;
          ++cuts_;
          return;
        }
      }
    }
  }

  TempDir dir_{"hpo_cut"};
  int listen_fd_ = -1;
  std::atomic<bool> stop_{false}, cut_{false};
  std::atomic<int> cuts_{0};
  std::thread thread_;
};

TEST_CASE("writes whose COMMIT answer was lost are retried without writing twice" *
          doctest::test_suite("postgres")) {
  if (!test_pg_url()) return;
  PgBackend db;
  CommitCutter cutter;
  PgStorage storage(cutter.url(db.url()));
  const auto study = storage.get_or_create_study("s", Direction::kMaximize);

  cutter.cut_next_commit();
  const auto t = storage.create_trial(study.id, {});
  CHECK(cutter.cuts() == 1);
  CHECK(storage.trials(study.id).size() == 1);  // one trial, not two
  CHECK(t.number == 0);
  CHECK(storage.trial(t.id).has_value());

  cutter.cut_next_commit();
  CHECK(storage.finish_trial(
      t.id, {TrialState::kComplete, 0.25, {{"a", 1}}, {}}));  // its own earlier finish
  CHECK(cutter.cuts() == 2);
  CHECK(storage.trial(t.id)->value == 0.25);
  // A real second finish is still refused.
  CHECK_FALSE(storage.finish_trial(t.id, {TrialState::kComplete, 0.25, {}, {}}));

  const auto u = storage.create_trial(study.id, {});
  cutter.cut_next_commit();
  CHECK(storage.compare_and_set_trial_system_attr(u.id, "owner", nullptr, "me"));
  CHECK(cutter.cuts() == 3);
  CHECK(storage.trial(u.id)->system_attrs.at("owner") == "me");
  CHECK(storage.trials(study.id).size() == 2);
}

// PostgreSQL creates a trial in two transactions, and the sampler runs
// between them (NewTrial::derived_params). A worker stalled there past the
// heartbeat grace has its trial taken over by another: its params and run
// attributes must not land in the new owner's trial, nor may it fail it.
TEST_CASE("a trial taken over while its params were made keeps nothing of its creator's" *
          doctest::test_suite("postgres")) {
  if (!test_pg_url()) return;
  PgBackend db;
  PgStorage creator(db.url());
  PgStorage other(db.url());  // the worker that finds the trial stale
  const auto study = creator.get_or_create_study("s", Direction::kMaximize);
  const OwnerGuard a{"hpo:owner", {{"host", "a"}, {"worker", "1"}}};
  const OwnerGuard b{"hpo:owner", {{"host", "b"}, {"worker", "2"}}};
  const Distribution layers = IntDistribution{2, 11, false, 1};
  for (const bool b_fails_it : {false, true}) {
    CAPTURE(b_fails_it);
    NewTrial fresh;
    fresh.system_attrs["hpo:owner"] = a.value;
    fresh.heartbeat = true;
    fresh.guard = a;
    int64_t taken = 0;
    fresh.derived_params = [&](int number) {
      for (const auto& t : other.trials(study.id))
        if (t.number == number) taken = t.id;
      db.age_heartbeats(taken, 600);
      REQUIRE(other.take_over_trial(taken, a.value, b, 60));
      if (b_fails_it) {
        TrialOutcome failed{TrialState::kFail, std::nullopt, {}, {}};
        failed.guard = b;
        REQUIRE(other.finish_trial(taken, failed));
      }
      return std::vector<StoredParam>{{"layers", layers, 5.0}};
    };
    fresh.derived_system_attrs = [](const TrialRecord&) {
      return Attrs{{"hpo:config", {{"layers", 5}}}};
    };
    try {
      creator.create_trial(study.id, fresh);
      FAIL("the creator stored a trial it no longer owns");
    } catch (const OwnershipLost& e) {
      CHECK(e.trial_id == taken);
      CHECK(e.holder == b.value);
    }
    const auto stored = other.trial(taken);
    REQUIRE(stored.has_value());
    CHECK(stored->params.empty());
    CHECK_FALSE(stored->system_attrs.count("hpo:config"));
    CHECK_FALSE(stored->system_attrs.count("hpo:fail_reason"));
    CHECK(stored->system_attrs.at("hpo:owner") == b.value);
    CHECK(stored->state == (b_fails_it ? TrialState::kFail : TrialState::kRunning));
  }
  // The same trial, still its creator's, is created whole.
  NewTrial fresh;
  fresh.system_attrs["hpo:owner"] = a.value;
  fresh.guard = a;
  fresh.derived_params = [&](int) { return std::vector<StoredParam>{{"layers", layers, 5.0}}; };
  const auto made = creator.create_trial(study.id, fresh);
  CHECK(creator.trial(made.id)->params.size() == 1);
}

}  // namespace
}  // namespace hpo
