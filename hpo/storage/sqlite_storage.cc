#include "hpo/storage/sqlite_storage.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <type_traits>

#include "hpo/storage/attr_tables.h"
#include "hpo/storage/backoff.h"
#include "hpo/storage/file_system_hint.h"
#include "hpo/storage/optuna_codec.h"
#include "hpo/storage/optuna_schema.h"
#include "hpo/storage/sqlite_db.h"
#include "hpo/storage/sqlite_read_only.h"
#include "hpo/storage/sqlite_trial_reader.h"
#include "hpo/storage/storage_checks.h"
#include "hpo/storage/trial_not_running.h"

namespace hpo {

namespace {

using nlohmann::json;

// After SQLite's busy timeout runs out, the whole transaction is retried;
// this many attempts in all.
constexpr int kMaxAttempts = 8;

void put_attr(SqliteDb& db, AttrTable t, int64_t owner, const std::string& key, const json& value) {
  Statement st(db, std::string("INSERT INTO ") + t.table + " (" + t.owner +
                       ", \"key\", value_json) VALUES (?1, ?2, ?3) ON CONFLICT (" + t.owner +
                       ", \"key\") DO UPDATE SET value_json = excluded.value_json");
  st.bind(1, owner).bind(2, key).bind(3, to_python_json(value)).run();
}

void put_attrs(SqliteDb& db, AttrTable t, int64_t owner, const Attrs& attrs) {
  for (const auto& [key, value] : attrs) put_attr(db, t, owner, key, value);
}

std::optional<json> get_attr(SqliteDb& db, AttrTable t, int64_t owner, const std::string& key) {
  Statement st(db, std::string("SELECT value_json FROM ") + t.table + " WHERE " + t.owner +
                       " = ?1 AND \"key\" = ?2");
  st.bind(1, owner).bind(2, key);
  if (!st.step()) return std::nullopt;
  return from_python_json(st.text(0));
}

std::optional<StudyRecord> select_study(SqliteDb& db, const std::string& name) {
  Statement st(db,
               "SELECT s.study_id, d.direction FROM studies s JOIN study_directions d "
               "ON d.study_id = s.study_id WHERE s.study_name = ?1 ORDER BY d.objective");
  st.bind(1, name);
  if (!st.step()) return std::nullopt;
  StudyRecord study{st.int64(0), name, direction_from_string(st.text(1))};
  do {
    study.directions.push_back(direction_from_string(st.text(1)));
  } while (st.step());
  return study;
}

void require_study(SqliteDb& db, int64_t study_id) {
  Statement st(db, "SELECT 1 FROM studies WHERE study_id = ?1");
  st.bind(1, study_id);
  if (!st.step()) throw StorageError("no study with id " + std::to_string(study_id));
}

TrialState trial_state(SqliteDb& db, int64_t trial_id) {
  Statement st(db, "SELECT state FROM trials WHERE trial_id = ?1");
  st.bind(1, trial_id);
  if (!st.step()) throw StorageError("no trial with id " + std::to_string(trial_id));
  return trial_state_from_string(st.text(0));
}

// Throws OwnershipLost unless `guard` holds. Write transactions are
// serialized, so the check and the write that follows are one step.
void check_guard(SqliteDb& db, int64_t trial_id, const OwnerGuard& guard) {
  if (guard.key.empty()) return;
  const json holder = get_attr(db, kTrialSystemAttrs, trial_id, guard.key).value_or(nullptr);
  if (holder != guard.value) throw OwnershipLost(trial_id, holder);
}

// The study's next trial number: one past its newest trial's. Optuna numbers
// a study's trials 0, 1, 2, ... in creation order (a trial's number is the
// count of the study's older trials), so this is how many it has; unique
// because the caller holds the write lock. Not COUNT(*): revision v3.0.0.d
// has no index on trials.study_id, so counting scans every trial of every
// study (50 us at 1,000 trials), while this walks back from the newest trial.
int next_trial_number(SqliteDb& db, int64_t study_id) {
  Statement st(db, "SELECT number FROM trials WHERE study_id = ?1 ORDER BY trial_id DESC LIMIT 1");
  st.bind(1, study_id);
  return st.step() ? static_cast<int>(st.int64(0)) + 1 : 0;
}

void insert_param(SqliteDb& db, int64_t trial_id, const StoredParam& p) {
  require_inside(p);
  Statement st(db,
               "INSERT INTO trial_params (trial_id, param_name, param_value, distribution_json) "
               "VALUES (?1, ?2, ?3, ?4)");
  st.bind(1, trial_id)
      .bind(2, p.name)
      .bind(3, p.internal)
      .bind(4, encode_distribution(p.distribution));
  st.run();
}

// Changes a stored param's value; its distribution stays as stored.
void update_param(SqliteDb& db, int64_t trial_id, const StoredParam& p) {
  require_inside(p);
  Statement st(db,
               "UPDATE trial_params SET param_value = ?1 "
               "WHERE trial_id = ?2 AND param_name = ?3 AND distribution_json = ?4");
  st.bind(1, p.internal)
      .bind(2, trial_id)
      .bind(3, p.name)
      .bind(4, encode_distribution(p.distribution))
      .run();
  if (db.changes() != 1) {
    throw StorageError("trial " + std::to_string(trial_id) + " has no param '" + p.name +
                       "' with distribution " + encode_distribution(p.distribution));
  }
}

void put_trial_value(SqliteDb& db, int64_t trial_id, int objective, double value) {
  const EncodedValue v = encode_value(value);
  Statement st(db,
               "INSERT INTO trial_values (trial_id, objective, value, value_type) "
               "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (trial_id, objective) "
               "DO UPDATE SET value = excluded.value, value_type = excluded.value_type");
  st.bind(1, trial_id).bind(2, objective).bind(3, v.value).bind(4, v.type).run();
}

void put_heartbeat(SqliteDb& db, int64_t trial_id) {
  // CURRENT_TIMESTAMP is what Optuna's func.now() gives on SQLite (UTC).
  Statement(db,
            "INSERT INTO trial_heartbeats (trial_id, heartbeat) VALUES (?, CURRENT_TIMESTAMP) "
            "ON CONFLICT (trial_id) DO UPDATE SET heartbeat = CURRENT_TIMESTAMP")
      .bind(1, trial_id)
      .run();
}

// Runs `body` between BEGIN and COMMIT; an exception rolls back.
template <typename Body>
auto in_transaction(SqliteDb& db, Transaction::Kind kind, Body&& body) {
  Transaction txn(db, kind);
  if constexpr (std::is_void_v<decltype(body())>) {
    body();
    txn.commit();
  } else {
    auto result = body();
    txn.commit();
    return result;
  }
}

}  // namespace

template <typename Fn>
auto SqliteStorage::retrying(const char* what, Fn&& fn) {
  for (int attempt = 1;; ++attempt) {
    try {
      return fn();
    } catch (const SqliteError& e) {
      if (e.is_contention() && attempt < kMaxAttempts) {
        backoff(attempt);
        continue;
      }
      throw StorageError(url_ + ": " + what + ": " + e.what() + file_system_hint(path_));
    } catch (const OwnershipLost&) {
      throw;  // an answer for the caller, not a failure
    } catch (const TrialNotRunning&) {
      throw;  // the same
    } catch (const std::exception& e) {
      throw StorageError(url_ + ": " + what + ": " + e.what());
    }
  }
}

template <typename Body>
auto SqliteStorage::read(const char* what, Body&& body) {
  std::lock_guard<std::mutex> lock(mu_);
  auto once = [&] {
    return retrying(what, [&] { return in_transaction(*db_, Transaction::Kind::kRead, body); });
  };
  // An immutable connection sees no writer (sqlite_read_only.h): a read
  // that a writer may have come before is made on a connection opened anew
  // (immutable again, or read-only beside the writer's -wal), and one that
  // a writer came during is done again.
  for (int attempt = 1;; ++attempt) {
    if (immutable_at_) {
      const FileStamp now = sqlite_file_stamp(path_);
      if (now != *immutable_at_ || now.recent()) open_read_only();
    }
    if (!immutable_at_) return once();
    try {
      if constexpr (std::is_void_v<decltype(once())>) {
        once();
        if (!changed_under_immutable()) return;
      } else {
        auto result = once();
        if (!changed_under_immutable()) return result;
      }
    } catch (const StorageError&) {
      if (!changed_under_immutable()) throw;
    }
    if (attempt == kMaxAttempts) {
      throw StorageError(url_ + ": " + what + ": the file changed during each of " +
                         std::to_string(kMaxAttempts) +
                         " reads (its owner's run is writing it); try again");
    }
  }
}

void SqliteStorage::open_read_only() {
  // Stamped before the URI is chosen: a writer that comes after it shows.
  const FileStamp stamp = sqlite_file_stamp(path_);
  const std::string uri = sqlite_read_only_uri(path_);
  try {
    auto db = std::make_unique<SqliteDb>(SqliteDb::ReadOnlyUri{uri});
    db->set_busy_timeout(static_cast<int>(busy_timeout_.count()));
    db_ = std::move(db);
  } catch (const SqliteError& e) {
    throw StorageError(url_ + ": cannot open: " + e.what() + file_system_hint(path_));
  }
  immutable_at_.reset();
  if (is_immutable_uri(uri)) immutable_at_ = stamp;
}

bool SqliteStorage::changed_under_immutable() const {
  return immutable_at_ && sqlite_file_stamp(path_) != *immutable_at_;
}

template <typename Body>
auto SqliteStorage::write(const char* what, Body&& body) {
  std::lock_guard<std::mutex> lock(mu_);
  return retrying(what, [&] { return in_transaction(*db_, Transaction::Kind::kWrite, body); });
}

SqliteStorage::SqliteStorage(const std::string& path, std::chrono::milliseconds busy_timeout,
                             const std::string& new_revision, Access access)
    : path_(path), url_("sqlite:///" + path), busy_timeout_(busy_timeout) {
  const bool read_only = access == Access::kReadOnly ||
                         (access == Access::kReadOnlyIfNeeded && !sqlite_writable(path));
  try {
    if (read_only) {
      open_read_only();
    } else {
      db_ = std::make_unique<SqliteDb>(path);
      db_->set_busy_timeout(static_cast<int>(busy_timeout.count()));
    }
  } catch (const SqliteError& e) {
    throw StorageError(url_ + ": cannot open: " + e.what() + file_system_hint(path_));
  }
  if (read_only) {
    // Nothing may change: no schema, no WAL switch, no sync setting.
    read("cannot open", [&] { check_optuna_schema(*db_); });
    return;
  }
  if (access != Access::kReadWrite) {
    // A read command on a file it may write: it creates no schema (a 0-byte
    // file stays one), switches no journal mode, and sets nothing.
    read("cannot open", [&] { check_optuna_schema(*db_); });
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  retrying("cannot open", [&] {
    in_transaction(*db_, Transaction::Kind::kWrite,
                   [&] { ensure_optuna_schema(*db_, new_revision); });
    // Only now, and outside any transaction as SQLite requires: switching to
    // WAL rewrites the file header, and a database we refuse must be left
    // byte for byte. In WAL, readers and the writer never block each other.
    Statement(*db_, "PRAGMA journal_mode=WAL").run();
  });
  // With WAL, NORMAL syncs at checkpoints rather than at every commit: a
  // killed process still loses nothing committed, and a crash of the OS or
  // a power cut can lose only the last commits, never corrupt the file.
  // FULL would cost an fsync per trial update (about 4 ms each here).
  Statement(*db_, "PRAGMA synchronous=NORMAL").run();
}

SqliteStorage::~SqliteStorage() = default;

std::string SqliteStorage::schema_revision() {
  return read("schema_revision", [&] { return optuna_schema_revision(*db_); });
}

bool SqliteStorage::upgrade_schema() {
  return write("upgrade_schema", [&] { return upgrade_optuna_schema(*db_); });
}

std::optional<StudyRecord> SqliteStorage::find_study(const std::string& name) {
  return read("find_study", [&] { return select_study(*db_, name); });
}

StudyRecord SqliteStorage::get_or_create_study(const std::string& name,
                                               const std::vector<Direction>& directions) {
  if (directions.empty()) throw StorageError("study '" + name + "' needs a direction");
  return write("get_or_create_study", [&] {
    if (auto study = select_study(*db_, name)) {
      require_directions(*study, directions);
      return *study;
    }
    Statement(*db_, "INSERT INTO studies (study_name) VALUES (?1)").bind(1, name).run();
    const int64_t id = db_->last_insert_rowid();
    for (size_t k = 0; k < directions.size(); ++k) {
      Statement(*db_,
                "INSERT INTO study_directions (direction, study_id, objective) VALUES (?1, ?2, ?3)")
          .bind(1, to_string(directions[k]))
          .bind(2, id)
          .bind(3, static_cast<int64_t>(k))
          .run();
    }
    return StudyRecord{id, name, directions.front(), directions};
  });
}

std::vector<StudySummary> SqliteStorage::list_studies() {
  return read("list_studies", [&] {
    std::vector<StudySummary> out;
    std::map<int64_t, StudySummary*> by_id;
    Statement studies(*db_,
                      "SELECT s.study_id, s.study_name, d.direction FROM studies s "
                      "JOIN study_directions d ON d.study_id = s.study_id AND d.objective = 0 "
                      "ORDER BY s.study_id");
    while (studies.step()) {
      out.push_back(
          {{studies.int64(0), studies.text(1), direction_from_string(studies.text(2))}, {}, {}});
    }
    for (auto& s : out) by_id[s.study.id] = &s;

    Statement counts(*db_, "SELECT study_id, state, COUNT(*) FROM trials GROUP BY study_id, state");
    while (counts.step()) {
      const auto it = by_id.find(counts.int64(0));
      if (it == by_id.end()) continue;
      it->second->counts[trial_state_from_string(counts.text(1))] =
          static_cast<int>(counts.int64(2));
    }

    Statement best(*db_, kBestValuesSql);
    while (best.step()) {
      const auto it = by_id.find(best.int64(0));
      if (it == by_id.end()) continue;
      fold_best(*it->second, best.text(1), best.optional_real(2), best.optional_real(3));
    }
    Statement constrained(*db_, kConstrainedValuesSql);
    ConstrainedFold fold(by_id);
    while (constrained.step()) {
      fold.row(constrained.int64(0), constrained.int64(1), constrained.text(2),
               constrained.optional_real(3), constrained.text(4), constrained.text(5));
    }
    fold.finish();
    return out;
  });
}

void SqliteStorage::set_study_user_attr(int64_t study_id, const std::string& key,
                                        const json& value) {
  write("set_study_user_attr", [&] {
    require_study(*db_, study_id);
    put_attr(*db_, kStudyUserAttrs, study_id, key, value);
  });
}

Attrs SqliteStorage::study_user_attrs(int64_t study_id) {
  return read("study_user_attrs", [&] {
    require_study(*db_, study_id);
    Statement st(*db_, "SELECT \"key\", value_json FROM study_user_attributes WHERE study_id = ?1");
    st.bind(1, study_id);
    Attrs attrs;
    while (st.step()) attrs[st.text(0)] = from_python_json(st.text(1));
    return attrs;
  });
}

TrialRecord SqliteStorage::create_trial(int64_t study_id, const NewTrial& trial) {
  return write("create_trial", [&] {
    require_study(*db_, study_id);
    TrialRecord t;
    t.number = next_trial_number(*db_, study_id);
    t.state = TrialState::kRunning;
    t.datetime_start = datetime_now();
    Statement(
        *db_,
        "INSERT INTO trials (number, study_id, state, datetime_start) VALUES (?1, ?2, ?3, ?4)")
        .bind(1, t.number)
        .bind(2, study_id)
        .bind(3, to_string(t.state))
        .bind(4, t.datetime_start)
        .run();
    t.id = db_->last_insert_rowid();
    t.params = trial.derived_params ? trial.derived_params(t.number) : trial.params;
    for (const auto& p : t.params) insert_param(*db_, t.id, p);
    t.user_attrs = trial.user_attrs;
    t.system_attrs = trial.system_attrs;
    if (trial.derived_system_attrs) {
      for (auto& [key, value] : trial.derived_system_attrs(t))
        t.system_attrs[key] = std::move(value);
    }
    put_attrs(*db_, kTrialUserAttrs, t.id, t.user_attrs);
    put_attrs(*db_, kTrialSystemAttrs, t.id, t.system_attrs);
    if (trial.heartbeat) put_heartbeat(*db_, t.id);
    return t;
  });
}

void SqliteStorage::set_intermediate_value(int64_t trial_id, int step, double value,
                                           const OwnerGuard& guard) {
  write("set_intermediate_value", [&] {
    const TrialState state = trial_state(*db_, trial_id);
    check_guard(*db_, trial_id, guard);
    if (state != TrialState::kRunning) throw TrialNotRunning(trial_id, state);
    const EncodedValue v = encode_value(value);
    Statement(
        *db_,
        "INSERT INTO trial_intermediate_values "
        "(trial_id, step, intermediate_value, intermediate_value_type) VALUES (?1, ?2, ?3, ?4) "
        "ON CONFLICT (trial_id, step) DO UPDATE SET intermediate_value = "
        "excluded.intermediate_value, intermediate_value_type = excluded.intermediate_value_type")
        .bind(1, trial_id)
        .bind(2, step)
        .bind(3, v.value)
        .bind(4, v.type)
        .run();
  });
}

void SqliteStorage::set_trial_system_attrs(int64_t trial_id, const Attrs& attrs,
                                           const OwnerGuard& guard) {
  write("set_trial_system_attrs", [&] {
    trial_state(*db_, trial_id);  // the trial must exist
    check_guard(*db_, trial_id, guard);
    for (const auto& [key, value] : attrs) put_attr(*db_, kTrialSystemAttrs, trial_id, key, value);
  });
}

bool SqliteStorage::compare_and_set_trial_system_attr(int64_t trial_id, const std::string& key,
                                                      const json& expected, const json& desired) {
  return write("compare_and_set_trial_system_attr", [&] {
    if (trial_state(*db_, trial_id) != TrialState::kRunning) return false;
    const json current = get_attr(*db_, kTrialSystemAttrs, trial_id, key).value_or(nullptr);
    if (current != expected) return false;
    put_attr(*db_, kTrialSystemAttrs, trial_id, key, desired);
    return true;
  });
}

bool SqliteStorage::take_over_trial(int64_t trial_id, const json& from, const OwnerGuard& to,
                                    std::optional<double> stale_after_s) {
  return write("take_over_trial", [&] {
    if (trial_state(*db_, trial_id) != TrialState::kRunning) return false;
    const json current = get_attr(*db_, kTrialSystemAttrs, trial_id, to.key).value_or(nullptr);
    if (current != from) return false;
    if (stale_after_s) {
      Statement st(*db_,
                   "SELECT (julianday(CURRENT_TIMESTAMP) - julianday(heartbeat)) * 86400.0 > ? "
                   "FROM trial_heartbeats WHERE trial_id = ?");
      st.bind(1, *stale_after_s).bind(2, trial_id);
      if (!st.step() || st.int64(0) == 0) return false;  // fresh, or never beat
    }
    put_attr(*db_, kTrialSystemAttrs, trial_id, to.key, to.value);
    put_heartbeat(*db_, trial_id);
    return true;
  });
}

void SqliteStorage::record_heartbeat(int64_t trial_id, const OwnerGuard& guard) {
  write("record_heartbeat", [&] {
    const TrialState state = trial_state(*db_, trial_id);
    check_guard(*db_, trial_id, guard);
    if (state != TrialState::kRunning) throw TrialNotRunning(trial_id, state);
    put_heartbeat(*db_, trial_id);
  });
}

std::vector<int64_t> SqliteStorage::stale_trials(int64_t study_id, double grace_s) {
  return read("stale_trials", [&] {
    Statement st(
        *db_,
        "SELECT t.trial_id FROM trials t JOIN trial_heartbeats h ON h.trial_id = t.trial_id "
        "WHERE t.study_id = ? AND t.state = 'RUNNING' "
        "AND (julianday(CURRENT_TIMESTAMP) - julianday(h.heartbeat)) * 86400.0 > ?");
    st.bind(1, study_id).bind(2, grace_s);
    std::vector<int64_t> ids;
    while (st.step()) ids.push_back(st.int64(0));
    return ids;
  });
}

bool SqliteStorage::finish_trial(int64_t trial_id, const TrialOutcome& outcome) {
  return write("finish_trial", [&] {
    check_outcome(outcome);
    const TrialState state = trial_state(*db_, trial_id);
    check_guard(*db_, trial_id, outcome.guard);
    if (state != TrialState::kRunning) return false;
    Statement(*db_, "UPDATE trials SET state = ?1, datetime_complete = ?2 WHERE trial_id = ?3")
        .bind(1, to_string(outcome.state))
        .bind(2, datetime_now())
        .bind(3, trial_id)
        .run();
    const auto values = outcome_values(outcome);
    for (size_t k = 0; k < values.size(); ++k)
      put_trial_value(*db_, trial_id, static_cast<int>(k), values[k]);
    for (const auto& p : outcome.params) update_param(*db_, trial_id, p);
    put_attrs(*db_, kTrialUserAttrs, trial_id, outcome.user_attrs);
    put_attrs(*db_, kTrialSystemAttrs, trial_id, outcome.system_attrs);
    return true;
  });
}

std::optional<TrialRecord> SqliteStorage::trial(int64_t trial_id) {
  return read("trial", [&]() -> std::optional<TrialRecord> {
    auto trials = read_trials(*db_, TrialScope::trial(trial_id));
    if (trials.empty()) return std::nullopt;
    return std::move(trials.front());
  });
}

std::vector<TrialRecord> SqliteStorage::trials(int64_t study_id) {
  return read("trials", [&] {
    require_study(*db_, study_id);
    return read_trials(*db_, TrialScope::study(study_id));
  });
}

std::vector<TrialRecord> SqliteStorage::trials_changed(int64_t study_id, int64_t after_trial_id,
                                                       const std::vector<int64_t>& also) {
  return read("trials_changed", [&] {
    require_study(*db_, study_id);
    TrialScope scope{TrialScope::Kind::kStudyChanged, study_id, after_trial_id, json(also).dump()};
    return read_trials(*db_, scope);
  });
}

}  // namespace hpo
