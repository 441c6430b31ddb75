#include "hpo/storage/pg_storage.h"

#include <chrono>
#include <cstdio>
#include <random>

#include "hpo/storage/attr_tables.h"
#include "hpo/storage/optuna_codec.h"
#include "hpo/storage/pg_connection.h"
#include "hpo/storage/pg_prepared.h"
#include "hpo/storage/pg_schema.h"
#include "hpo/storage/pg_trial_reader.h"
#include "hpo/storage/pg_url.h"
#include "hpo/storage/storage_checks.h"
#include "hpo/storage/trial_attrs.h"
#include "hpo/storage/trial_not_running.h"

namespace hpo {

namespace {

using nlohmann::json;

// The system attribute that marks a trial with the call that created it, so
// that a retry after a lost COMMIT finds the trial instead of making another.
constexpr const char kCreateToken[] = "hpo:create_token";

// A double as text that PostgreSQL reads back to the same bits.
std::string real(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// A nullable float parameter: the text, or a null pointer for SQL NULL.
struct OptionalReal {
  explicit OptionalReal(const std::optional<double>& v) : text(v ? real(*v) : ""), null(!v) {}
  const char* param() const { return null ? nullptr : text.c_str(); }
  std::string text;
  bool null;
};

std::string random_token() {
  std::random_device rd;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return buf;
}

void put_attr(pqxx::work& tx, AttrTable t, int64_t owner, const std::string& key,
              const json& value) {
  exec_prepared_sql0(tx,
                     std::string("INSERT INTO ") + t.table + " (" + t.owner +
                         ", key, value_json) VALUES ($1, $2, $3) ON CONFLICT (" + t.owner +
                         ", key) DO UPDATE SET value_json = excluded.value_json",
                     owner, key, to_python_json(value));
}

// JSON text for one statement's rows; PostgreSQL, too, takes only UTF-8.
std::string utf8_dump(const json& rows, const char* table) {
  try {
    return rows.dump();
  } catch (const json::type_error& e) {
    throw StorageError(std::string(table) + ": names and values must be UTF-8 text: " + e.what());
  }
}

// JSON text of one attribute table's rows: key -> Optuna's JSON text of the value.
std::string attr_texts(const Attrs& attrs, const char* table) {
  json texts = json::object();
  for (const auto& [key, value] : attrs) texts[key] = to_python_json(value);
  return utf8_dump(texts, table);
}

// Upserts into `t`, for the owner $1, the rows of `param` (as attr_texts).
std::string upsert_attrs(AttrTable t, const char* param) {
  return std::string("INSERT INTO ") + t.table + " (" + t.owner +
         ", key, value_json) SELECT $1, key, value " + "FROM json_each_text(" + param +
         "::json) ON CONFLICT (" + t.owner +
         ", key) DO UPDATE SET value_json = excluded.value_json";
}

// All of `attrs` in one statement, one round trip.
void put_attrs(pqxx::work& tx, AttrTable t, int64_t owner, const Attrs& attrs) {
  if (attrs.empty()) return;
  exec_prepared_sql0(tx, upsert_attrs(t, "$2"), owner, attr_texts(attrs, t.table));
}

std::optional<StudyRecord> select_study(pqxx::work& tx, const std::string& name) {
  const auto r =
      exec_prepared_sql(tx,
                        "SELECT s.study_id, d.direction FROM studies s JOIN study_directions d "
                        "ON d.study_id = s.study_id WHERE s.study_name = $1 ORDER BY d.objective",
                        name);
  if (r.empty()) return std::nullopt;
  StudyRecord study{r[0][0].as<int64_t>(), name, direction_from_string(r[0][1].c_str())};
  for (const auto& row : r) study.directions.push_back(direction_from_string(row[1].c_str()));
  return study;
}

void require_study(pqxx::work& tx, int64_t study_id, const char* lock = "") {
  if (exec_prepared_sql(tx, std::string("SELECT 1 FROM studies WHERE study_id = $1") + lock,
                        study_id)
          .empty()) {
    throw StorageError("no study with id " + std::to_string(study_id));
  }
}

// The trial's state, its row locked: FOR SHARE for a write beside the row
// (an attribute, a value), FOR UPDATE for one that changes it. Throws
// OwnershipLost unless `guard` holds. The row lock waits for a takeover's
// compare-and-set (FOR UPDATE) to commit, and then holds it off until this
// transaction's write is in. The owner is read by a second statement, whose
// snapshot is taken after the lock was granted: a join in the first would
// read the owner as it was before the wait.
TrialState guarded_state(pqxx::work& tx, int64_t trial_id, const OwnerGuard& guard,
                         const char* lock) {
  const auto r = exec_prepared_sql(
      tx, std::string("SELECT state FROM trials WHERE trial_id = $1 FOR ") + lock, trial_id);
  if (r.empty()) throw StorageError("no trial with id " + std::to_string(trial_id));
  if (!guard.key.empty()) {
    const auto a = exec_prepared_sql(
        tx, "SELECT value_json FROM trial_system_attributes WHERE trial_id = $1 AND key = $2",
        trial_id, guard.key);
    const json holder = a.empty() ? json(nullptr) : from_python_json(a[0][0].c_str());
    if (holder != guard.value) throw OwnershipLost(trial_id, holder);
  }
  return trial_state_from_string(r[0][0].c_str());
}

std::vector<TrialRecord> select_trials(pqxx::work& tx, const std::string& where, int64_t id) {
  return read_pg_trials(
      tx, exec_prepared_sql(tx,
                            std::string("SELECT ") + kPgTrialColumns + " FROM trials WHERE " +
                                where + " ORDER BY number, trial_id",
                            id));
}

// All params in one statement, one round trip: a JSON array of
// [name, value as text, distribution]; the text casts back to the same double.
void insert_params(pqxx::work& tx, int64_t trial_id, const std::vector<StoredParam>& params) {
  if (params.empty()) return;
  json rows = json::array();
  for (const auto& p : params) {
    require_inside(p);
    rows.push_back({p.name, real(p.internal), encode_distribution(p.distribution)});
  }
  exec_prepared_sql0(
      tx,
      "INSERT INTO trial_params (trial_id, param_name, param_value, distribution_json) "
      "SELECT $1, p->>0, (p->>1)::double precision, p->>2 FROM json_array_elements($2::json) p",
      trial_id, utf8_dump(rows, "trial_params"));
}

// Changes a stored param's value; its distribution stays as stored.
void update_param(pqxx::work& tx, int64_t trial_id, const StoredParam& p) {
  require_inside(p);
  const auto r =
      exec_prepared_sql(tx,
                        "UPDATE trial_params SET param_value = $1 "
                        "WHERE trial_id = $2 AND param_name = $3 AND distribution_json = $4",
                        real(p.internal), trial_id, p.name, encode_distribution(p.distribution));
  if (r.affected_rows() != 1) {
    throw StorageError("trial " + std::to_string(trial_id) + " has no param '" + p.name +
                       "' with distribution " + encode_distribution(p.distribution));
  }
}

// Writes a finished trial's state, value, params, and attributes in one
// statement, one round trip (data-modifying CTEs on distinct tables).
void end_trial(pqxx::work& tx, int64_t trial_id, const TrialOutcome& outcome) {
  json value = json::array();
  const auto values = outcome_values(outcome);
  for (size_t k = 0; k < values.size(); ++k) {
    const EncodedValue v = encode_value(values[k]);
    value.push_back({v.value ? json(real(*v.value)) : json(nullptr), v.type, k});
  }
  json params = json::array();
  for (const auto& p : outcome.params) {
    require_inside(p);
    params.push_back({p.name, real(p.internal), encode_distribution(p.distribution)});
  }
  const auto r = exec_prepared_sql1(
      tx,
      "WITH done AS (UPDATE trials SET state = $2, datetime_complete = $3 WHERE trial_id = $1), "
      "value AS (INSERT INTO trial_values (trial_id, objective, value, value_type) "
      "SELECT $1, (v->>2)::integer, (v->>0)::double precision, (v->>1)::trialvaluetype FROM "
      "json_array_elements($4::json) v "
      "ON CONFLICT (trial_id, objective) DO UPDATE SET value = excluded.value, value_type = "
      "excluded.value_type), "
      "user_attrs AS (" +
          upsert_attrs(kTrialUserAttrs, "$5") +
          "), "
          "system_attrs AS (" +
          upsert_attrs(kTrialSystemAttrs, "$6") +
          "), "
          "params AS (UPDATE trial_params t SET param_value = (p->>1)::double precision "
          "FROM json_array_elements($7::json) p WHERE t.trial_id = $1 AND t.param_name = p->>0 "
          "AND t.distribution_json = p->>2 RETURNING 1) "
          "SELECT COUNT(*) FROM params",
      trial_id, to_string(outcome.state), datetime_now(), value.dump(),
      attr_texts(outcome.user_attrs, kTrialUserAttrs.table),
      attr_texts(outcome.system_attrs, kTrialSystemAttrs.table), utf8_dump(params, "trial_params"));
  if (r[0].as<size_t>() != outcome.params.size()) {
    for (const auto& p : outcome.params)
      update_param(tx, trial_id, p);  // names the one that differs
    throw StorageError("trial " + std::to_string(trial_id) +
                       ": its params do not match those stored");
  }
}

// The server's clock in the session's time zone, as Optuna keeps heartbeats
// (it writes now() into a TIMESTAMP WITHOUT TIME ZONE and compares with
// now() without its zone), so that hpo and Optuna workers in one fleet agree
// on which trials are stale. Every session is in the server's default zone:
// hpo ignores a client's PGTZ and PGOPTIONS' zone (pg_client_env.h). The
// time of the statement, not of the transaction's start (LOCALTIMESTAMP):
// a beat written after a wait for a lock is as new as the write.
constexpr const char kServerNow[] = "CAST(clock_timestamp() AS TIMESTAMP)";

void put_heartbeat(pqxx::work& tx, int64_t trial_id) {
  exec_prepared_sql0(
      tx,
      std::string("INSERT INTO trial_heartbeats (trial_id, heartbeat) VALUES ($1, ") + kServerNow +
          ") ON CONFLICT (trial_id) DO UPDATE SET heartbeat = excluded.heartbeat",
      trial_id);
}

// Whether the trial's last heartbeat is older than `seconds`; a trial
// without one is never stale (as stale_trials).
bool beat_older_than(pqxx::work& tx, int64_t trial_id, double seconds) {
  const auto r =
      exec_prepared_sql(tx,
                        std::string("SELECT EXTRACT(EPOCH FROM ") + kServerNow +
                            " - heartbeat) > $2 FROM trial_heartbeats WHERE trial_id = $1",
                        trial_id, real(seconds));
  return !r.empty() && r[0][0].as<bool>();
}

// The owner attribute of a trial whose row this transaction locked.
json owner_of(pqxx::work& tx, int64_t trial_id, const std::string& key) {
  const auto r = exec_prepared_sql(
      tx, "SELECT value_json FROM trial_system_attributes WHERE trial_id = $1 AND key = $2",
      trial_id, key);
  return r.empty() ? json(nullptr) : from_python_json(r[0][0].c_str());
}

// Inserts a RUNNING trial with the study's next number, under the study's
// row lock, and returns its id and number. The lock orders concurrent
// creators; READ COMMITTED then counts every trial committed before it was
// granted. Held only until this short transaction commits.
void insert_numbered_trial(pqxx::work& tx, int64_t study_id, TrialRecord& t) {
  require_study(tx, study_id, " FOR UPDATE");
  t.state = TrialState::kRunning;
  t.datetime_start = datetime_now();
  // The count and the insert in one statement: one round trip less under the lock.
  const auto row = exec_prepared_sql1(
      tx,
      "INSERT INTO trials (number, study_id, state, datetime_start) "
      "SELECT COUNT(*), $1, 'RUNNING', $2 FROM trials WHERE study_id = $1 RETURNING trial_id, "
      "number",
      study_id, t.datetime_start);
  t.id = row[0].as<int64_t>();
  t.number = row[1].as<int>();
}

// Whether `trial` makes anything from the trial's number: then the sampler
// is asked between the transaction that reserves the number and the one
// that stores what it made, never under the study's lock.
bool has_derived(const NewTrial& trial) {
  return static_cast<bool>(trial.derived_params) || static_cast<bool>(trial.derived_system_attrs);
}

// The trial an earlier try of this create_trial call committed, if any.
std::optional<TrialRecord> created_by(pqxx::work& tx, const std::string& token) {
  const auto r = exec_prepared_sql(
      tx, "SELECT trial_id FROM trial_system_attributes WHERE key = $1 AND value_json = $2",
      kCreateToken, to_python_json(json(token)));
  if (r.empty()) return std::nullopt;
  auto trials = select_trials(tx, "trial_id = $1", r[0][0].as<int64_t>());
  return std::move(trials.front());
}

// Whether the stored trial already ended as `outcome` asks: an earlier try
// of this finish_trial call committed before its answer was lost.
bool finished_as(pqxx::work& tx, int64_t trial_id, const TrialOutcome& outcome) {
  const auto r = exec_prepared_sql(
      tx,
      "SELECT t.state, v.value, v.value_type FROM trials t LEFT JOIN trial_values v "
      "ON v.trial_id = t.trial_id AND v.objective = 0 WHERE t.trial_id = $1",
      trial_id);
  if (r.empty() || trial_state_from_string(r[0][0].c_str()) != outcome.state) return false;
  const auto values = outcome_values(outcome);
  if (values.empty()) return true;
  if (r[0][2].is_null()) return false;
  const EncodedValue want = encode_value(values.front());
  return want.type == r[0][2].c_str() && (!want.value || r[0][1].as<double>() == *want.value);
}

}  // namespace

template <typename Body>
auto PgStorage::transact(const char* what, Body&& body) {
  std::lock_guard<std::mutex> lock(mu_);
  return conn_->transact(what, body);
}

PgStorage::PgStorage(const std::string& url, bool create_schema, const std::string& new_revision)
    : conn_(std::make_unique<PgConnection>(parse_pg_url(url))) {
  transact("cannot open", [&](pqxx::work& tx, const PgAttempt&) {
    ensure_pg_schema(tx, create_schema, new_revision);
  });
}

PgStorage::~PgStorage() = default;

std::string PgStorage::url() const { return conn_->url().masked; }

std::string PgStorage::schema_revision() {
  return transact("schema_revision",
                  [](pqxx::work& tx, const PgAttempt&) { return pg_schema_revision(tx); });
}

bool PgStorage::upgrade_schema() {
  return transact("upgrade_schema",
                  [](pqxx::work& tx, const PgAttempt&) { return upgrade_pg_schema(tx); });
}

std::optional<StudyRecord> PgStorage::find_study(const std::string& name) {
  return transact("find_study",
                  [&](pqxx::work& tx, const PgAttempt&) { return select_study(tx, name); });
}

StudyRecord PgStorage::get_or_create_study(const std::string& name,
                                           const std::vector<Direction>& directions) {
  if (directions.empty()) throw StorageError("study '" + name + "' needs a direction");
  return transact("get_or_create_study", [&](pqxx::work& tx, const PgAttempt&) {
    // Another host creating the same study at once: ON CONFLICT waits for
    // its commit, and the second SELECT (a new snapshot) then sees it.
    auto study = select_study(tx, name);
    if (!study) {
      const auto r = exec_prepared_sql(
          tx,
          "INSERT INTO studies (study_name) VALUES ($1) ON CONFLICT (study_name) DO NOTHING "
          "RETURNING study_id",
          name);
      if (r.empty()) {
        study = select_study(tx, name);
        if (!study) throw StorageError("study '" + name + "' has no direction");
      } else {
        const int64_t id = r[0][0].as<int64_t>();
        for (size_t k = 0; k < directions.size(); ++k) {
          exec_prepared_sql0(
              tx,
              "INSERT INTO study_directions (direction, study_id, objective) VALUES ($1, $2, $3)",
              to_string(directions[k]), id, static_cast<int>(k));
        }
        return StudyRecord{id, name, directions.front(), directions};
      }
    }
    require_directions(*study, directions);
    return *study;
  });
}

std::vector<StudySummary> PgStorage::list_studies() {
  return transact("list_studies", [&](pqxx::work& tx, const PgAttempt&) {
    std::vector<StudySummary> out;
    for (const auto& r : tx.exec("SELECT s.study_id, s.study_name, d.direction FROM studies s "
                                 "JOIN study_directions d ON d.study_id = s.study_id AND "
                                 "d.objective = 0 ORDER BY s.study_id")) {
      out.push_back(
          {{r[0].as<int64_t>(), r[1].c_str(), direction_from_string(r[2].c_str())}, {}, {}});
    }
    std::map<int64_t, StudySummary*> by_id;
    for (auto& s : out) by_id[s.study.id] = &s;
    for (const auto& r :
         tx.exec("SELECT study_id, state, COUNT(*) FROM trials GROUP BY study_id, state")) {
      const auto it = by_id.find(r[0].as<int64_t>());
      if (it != by_id.end())
        it->second->counts[trial_state_from_string(r[1].c_str())] = r[2].as<int>();
    }
    auto opt = [](const pqxx::field& f) {
      return f.is_null() ? std::nullopt : std::optional(f.as<double>());
    };
    for (const auto& r : tx.exec(kBestValuesSql)) {
      const auto it = by_id.find(r[0].as<int64_t>());
      if (it != by_id.end()) fold_best(*it->second, r[1].c_str(), opt(r[2]), opt(r[3]));
    }
    ConstrainedFold fold(by_id);
    for (const auto& r : tx.exec(kConstrainedValuesSql))
      fold.row(r[0].as<int64_t>(), r[1].as<int64_t>(), r[2].c_str(), opt(r[3]), r[4].c_str(),
               r[5].c_str());
    fold.finish();
    return out;
  });
}

void PgStorage::set_study_user_attr(int64_t study_id, const std::string& key, const json& value) {
  transact("set_study_user_attr", [&](pqxx::work& tx, const PgAttempt&) {
    require_study(tx, study_id);
    put_attr(tx, kStudyUserAttrs, study_id, key, value);
  });
}

Attrs PgStorage::study_user_attrs(int64_t study_id) {
  return transact("study_user_attrs", [&](pqxx::work& tx, const PgAttempt&) {
    require_study(tx, study_id);
    Attrs attrs;
    for (const auto& r : exec_prepared_sql(
             tx, "SELECT key, value_json FROM study_user_attributes WHERE study_id = $1",
             study_id)) {
      attrs[r[0].c_str()] = from_python_json(r[1].c_str());
    }
    return attrs;
  });
}

TrialRecord PgStorage::create_trial(int64_t study_id, const NewTrial& trial) {
  TrialRecord t = reserve_trial(study_id, trial);
  if (!has_derived(trial)) return t;
  try {
    complete_trial(t, trial);
  } catch (const OwnershipLost&) {
    throw;  // another worker's trial now: not ours to fail
  } catch (const TrialNotRunning&) {
    throw;  // ended by another client already
  } catch (const std::exception& e) {
    fail_incomplete(t.id, trial.guard, e.what());
    throw;
  }
  return t;
}

TrialRecord PgStorage::reserve_trial(int64_t study_id, const NewTrial& trial) {
  const std::string token = random_token();
  return transact("create_trial", [&](pqxx::work& tx, const PgAttempt& attempt) {
    if (attempt.maybe_committed) {
      if (auto made = created_by(tx, token)) return *made;
    }
    TrialRecord t;
    insert_numbered_trial(tx, study_id, t);
    if (!trial.derived_params) {
      t.params = trial.params;
      insert_params(tx, t.id, t.params);
    }
    t.user_attrs = trial.user_attrs;
    t.system_attrs = trial.system_attrs;
    t.system_attrs[kCreateToken] = token;
    put_attrs(tx, kTrialUserAttrs, t.id, t.user_attrs);
    put_attrs(tx, kTrialSystemAttrs, t.id, t.system_attrs);
    // A worker that dies before the second transaction leaves a trial that
    // beats no more: it is found stale and taken over like any other.
    if (trial.heartbeat) put_heartbeat(tx, t.id);
    return t;
  });
}

void PgStorage::complete_trial(TrialRecord& t, const NewTrial& trial) {
  // Once, outside any transaction: the sampler's ask may take a while.
  if (trial.derived_params) t.params = trial.derived_params(t.number);
  Attrs derived;
  if (trial.derived_system_attrs) derived = trial.derived_system_attrs(t);
  for (const auto& [key, value] : derived) t.system_attrs[key] = value;
  transact("create_trial", [&](pqxx::work& tx, const PgAttempt& attempt) {
    // The sampler ran outside any transaction, and for as long as it liked:
    // another worker may have found the trial stale and taken it over.
    const TrialState state = guarded_state(tx, t.id, trial.guard, "UPDATE");
    if (state != TrialState::kRunning) throw TrialNotRunning(t.id, state);
    const bool stored =
        attempt.maybe_committed &&
        !exec_prepared_sql(tx, "SELECT 1 FROM trial_params WHERE trial_id = $1", t.id).empty();
    if (trial.derived_params && !stored) insert_params(tx, t.id, t.params);
    put_attrs(tx, kTrialSystemAttrs, t.id, derived);
    // The first beat as the trial starts, after the sampler was asked.
    if (trial.heartbeat) put_heartbeat(tx, t.id);
  });
}

void PgStorage::fail_incomplete(int64_t trial_id, const OwnerGuard& guard, const std::string& why) {
  try {
    transact("create_trial", [&](pqxx::work& tx, const PgAttempt&) {
      guarded_state(tx, trial_id, guard, "UPDATE");
      exec_prepared_sql0(
          tx,
          "UPDATE trials SET state = 'FAIL', datetime_complete = $2 WHERE trial_id = $1 AND "
          "state = 'RUNNING'",
          trial_id, datetime_now());
      put_attr(tx, kTrialSystemAttrs, trial_id, kFailReasonAttr,
               "its params could not be made or stored: " + why);
    });
  } catch (const StorageError&) {
    // Left RUNNING without params: its beat stops, and whoever takes it
    // over fails it (StudyRunner::take_orphan). Or taken over already
    // (OwnershipLost): its new owner does.
  }
}

void PgStorage::set_intermediate_value(int64_t trial_id, int step, double value,
                                       const OwnerGuard& guard) {
  transact("set_intermediate_value", [&](pqxx::work& tx, const PgAttempt&) {
    const TrialState state = guarded_state(tx, trial_id, guard, "SHARE");
    if (state != TrialState::kRunning) throw TrialNotRunning(trial_id, state);
    const EncodedValue v = encode_value(value);
    const OptionalReal number(v.value);
    exec_prepared_sql0(
        tx,
        "INSERT INTO trial_intermediate_values "
        "(trial_id, step, intermediate_value, intermediate_value_type) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (trial_id, step) DO UPDATE SET intermediate_value = "
        "excluded.intermediate_value, "
        "intermediate_value_type = excluded.intermediate_value_type",
        trial_id, step, number.param(), v.type);
  });
}

void PgStorage::set_trial_system_attrs(int64_t trial_id, const Attrs& attrs,
                                       const OwnerGuard& guard) {
  transact("set_trial_system_attrs", [&](pqxx::work& tx, const PgAttempt&) {
    guarded_state(tx, trial_id, guard, "SHARE");  // the trial must exist
    put_attrs(tx, kTrialSystemAttrs, trial_id, attrs);
  });
}

bool PgStorage::compare_and_set_trial_system_attr(int64_t trial_id, const std::string& key,
                                                  const json& expected, const json& desired) {
  return transact(
      "compare_and_set_trial_system_attr", [&](pqxx::work& tx, const PgAttempt& attempt) {
        // The trial's row lock makes the compare and the set one step.
        const auto state = exec_prepared_sql(
            tx, "SELECT state FROM trials WHERE trial_id = $1 FOR UPDATE", trial_id);
        if (state.empty()) throw StorageError("no trial with id " + std::to_string(trial_id));
        if (trial_state_from_string(state[0][0].c_str()) != TrialState::kRunning) return false;
        const auto r = exec_prepared_sql(
            tx, "SELECT value_json FROM trial_system_attributes WHERE trial_id = $1 AND key = $2",
            trial_id, key);
        const json current = r.empty() ? json(nullptr) : from_python_json(r[0][0].c_str());
        // An earlier try that committed before its answer was lost set it.
        if (attempt.maybe_committed && current == desired && current != expected) return true;
        if (current != expected) return false;
        put_attr(tx, kTrialSystemAttrs, trial_id, key, desired);
        return true;
      });
}

bool PgStorage::take_over_trial(int64_t trial_id, const json& from, const OwnerGuard& to,
                                std::optional<double> stale_after_s) {
  return transact("take_over_trial", [&](pqxx::work& tx, const PgAttempt& attempt) {
    // The trial's row lock makes the checks and the writes one step.
    const auto state =
        exec_prepared_sql(tx, "SELECT state FROM trials WHERE trial_id = $1 FOR UPDATE", trial_id);
    if (state.empty()) throw StorageError("no trial with id " + std::to_string(trial_id));
    if (trial_state_from_string(state[0][0].c_str()) != TrialState::kRunning) return false;
    const json current = owner_of(tx, trial_id, to.key);
    // An earlier try that committed before its answer was lost took it.
    if (attempt.maybe_committed && current == to.value && current != from) return true;
    if (current != from) return false;
    if (stale_after_s && !beat_older_than(tx, trial_id, *stale_after_s)) return false;
    put_attr(tx, kTrialSystemAttrs, trial_id, to.key, to.value);
    put_heartbeat(tx, trial_id);
    return true;
  });
}

void PgStorage::record_heartbeat(int64_t trial_id, const OwnerGuard& guard) {
  // On a connection of its own: a beat never waits behind another call of
  // this process (a create_trial waiting for the study's lock, say).
  std::lock_guard<std::mutex> lock(beat_mu_);
  if (!beat_conn_) beat_conn_ = std::make_unique<PgConnection>(conn_->url());
  beat_conn_->transact("record_heartbeat", [&](pqxx::work& tx, const PgAttempt&) {
    const TrialState state = guarded_state(tx, trial_id, guard, "SHARE");
    if (state != TrialState::kRunning) throw TrialNotRunning(trial_id, state);
    put_heartbeat(tx, trial_id);
  });
}

std::vector<int64_t> PgStorage::stale_trials(int64_t study_id, double grace_s) {
  return transact("stale_trials", [&](pqxx::work& tx, const PgAttempt&) {
    std::vector<int64_t> ids;
    for (const auto& r : exec_prepared_sql(
             tx,
             std::string("SELECT t.trial_id FROM trials t JOIN trial_heartbeats h ON h.trial_id = "
                         "t.trial_id "
                         "WHERE t.study_id = $1 AND t.state = 'RUNNING' AND EXTRACT(EPOCH FROM ") +
                 kServerNow + " - h.heartbeat) > $2 ORDER BY t.trial_id",
             study_id, real(grace_s))) {
      ids.push_back(r[0].as<int64_t>());
    }
    return ids;
  });
}

bool PgStorage::finish_trial(int64_t trial_id, const TrialOutcome& outcome) {
  return transact("finish_trial", [&](pqxx::work& tx, const PgAttempt& attempt) {
    check_outcome(outcome);
    if (guarded_state(tx, trial_id, outcome.guard, "UPDATE") != TrialState::kRunning) {
      return attempt.maybe_committed && finished_as(tx, trial_id, outcome);
    }
    end_trial(tx, trial_id, outcome);
    return true;
  });
}

std::optional<TrialRecord> PgStorage::trial(int64_t trial_id) {
  return transact("trial", [&](pqxx::work& tx, const PgAttempt&) -> std::optional<TrialRecord> {
    auto trials = select_trials(tx, "trial_id = $1", trial_id);
    if (trials.empty()) return std::nullopt;
    return std::move(trials.front());
  });
}

std::vector<TrialRecord> PgStorage::trials(int64_t study_id) {
  return transact("trials", [&](pqxx::work& tx, const PgAttempt&) {
    require_study(tx, study_id);
    return select_trials(tx, "study_id = $1", study_id);
  });
}

std::vector<TrialRecord> PgStorage::trials_changed(int64_t study_id, int64_t after_trial_id,
                                                   const std::vector<int64_t>& also) {
  std::string ids = "{";
  for (const int64_t id : also) ids += (ids.size() > 1 ? "," : "") + std::to_string(id);
  ids += "}";
  return transact("trials_changed", [&](pqxx::work& tx, const PgAttempt&) {
    require_study(tx, study_id);
    return read_pg_trials(
        tx,
        exec_prepared_sql(
            tx,
            std::string("SELECT ") + kPgTrialColumns +
                " FROM trials WHERE study_id = $1 AND (trial_id > $2 OR trial_id = ANY($3::int[])) "
                "ORDER BY number, trial_id",
            study_id, after_trial_id, ids));
  });
}

}  // namespace hpo
