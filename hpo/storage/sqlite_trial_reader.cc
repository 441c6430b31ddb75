#include "hpo/storage/sqlite_trial_reader.h"

#include <map>
#include <string>
#include <unordered_map>

#include "hpo/storage/optuna_codec.h"
#include "hpo/storage/sqlite_db.h"

namespace hpo {

namespace {

// Index of each loaded trial by trial_id, to attach the rows of the other
// tables; rows of trials outside the scope cannot occur within one snapshot.
using TrialIndex = std::unordered_map<int64_t, TrialRecord*>;

// Whether a change scope lists no trial ids beyond its range.
bool no_ids(const TrialScope& scope) {
  return scope.also_ids_json.empty() || scope.also_ids_json == "[]";
}

// The WHERE conditions selecting the scope's rows: in `trials` itself and in
// the tables keyed by trial_id. bind_scope() binds their parameters.
std::string trials_where(const TrialScope& scope) {
  switch (scope.kind) {
    case TrialScope::Kind::kStudy:
      return "study_id = ?1";
    case TrialScope::Kind::kTrial:
      return "trial_id = ?1";
    case TrialScope::Kind::kStudyChanged:
      // Without ids to add, no list: SQLite builds a temporary table for each.
      if (no_ids(scope)) return "study_id = ?1 AND trial_id > ?2";
      return "study_id = ?1 AND (trial_id > ?2 OR trial_id IN (SELECT value FROM json_each(?3)))";
    case TrialScope::Kind::kTrialIds:
      return "trial_id IN (SELECT value FROM json_each(?1))";
  }
  return "0";
}

std::string children_where(const TrialScope& scope) {
  switch (scope.kind) {
    case TrialScope::Kind::kTrial:
    case TrialScope::Kind::kTrialIds:
      return trials_where(scope);
    default:
      return "trial_id IN (SELECT trial_id FROM trials WHERE " + trials_where(scope) + ")";
  }
}

// Exactly `trials`: by id for one (the usual change set, and no temporary
// table in SQLite), by a JSON list of ids for more.
TrialScope scope_of(const std::vector<TrialRecord>& trials) {
  if (trials.size() == 1) return TrialScope::trial(trials.front().id);
  std::string ids = "[";
  for (const auto& t : trials) ids += (ids.size() > 1 ? "," : "") + std::to_string(t.id);
  return TrialScope{TrialScope::Kind::kTrialIds, 0, 0, ids + "]"};
}

void bind_scope(Statement& st, const TrialScope& scope) {
  if (scope.kind == TrialScope::Kind::kTrialIds) {
    st.bind(1, scope.also_ids_json);
    return;
  }
  st.bind(1, scope.id);
  if (scope.kind == TrialScope::Kind::kStudyChanged) {
    st.bind(2, scope.after_id);
    if (!no_ids(scope)) st.bind(3, scope.also_ids_json);
  }
}

std::vector<TrialRecord> read_trial_rows(SqliteDb& db, const TrialScope& scope) {
  Statement st(db,
               "SELECT trial_id, number, state, datetime_start, datetime_complete FROM trials "
               "WHERE " +
                   trials_where(scope) + " ORDER BY number, trial_id");
  bind_scope(st, scope);
  std::vector<TrialRecord> trials;
  while (st.step()) {
    TrialRecord t;
    t.id = st.int64(0);
    t.number = static_cast<int>(st.int64(1));
    t.state = trial_state_from_string(st.text(2));
    t.datetime_start = st.text(3);
    t.datetime_complete = st.text(4);
    trials.push_back(std::move(t));
  }
  return trials;
}

void read_params(SqliteDb& db, const TrialScope& scope, const TrialIndex& index) {
  Statement st(db,
               "SELECT trial_id, param_name, param_value, distribution_json FROM trial_params "
               "WHERE " +
                   children_where(scope) + " ORDER BY param_id");
  bind_scope(st, scope);
  // Every trial of a study usually repeats the same few distributions.
  std::map<std::string, Distribution> decoded;
  while (st.step()) {
    const auto it = index.find(st.int64(0));
    if (it == index.end()) continue;
    const std::string json = st.text(3);
    auto dist = decoded.find(json);
    if (dist == decoded.end()) dist = decoded.emplace(json, decode_distribution(json)).first;
    it->second->params.push_back(StoredParam{st.text(1), dist->second, st.real(2)});
  }
}

void read_values(SqliteDb& db, const TrialScope& scope, const TrialIndex& index) {
  Statement st(db, "SELECT trial_id, value, value_type FROM trial_values WHERE " +
                       children_where(scope) + " ORDER BY trial_id, objective");
  bind_scope(st, scope);
  while (st.step()) {
    const auto it = index.find(st.int64(0));
    if (it != index.end()) add_value(*it->second, decode_value(st.optional_real(1), st.text(2)));
  }
}

void read_intermediate(SqliteDb& db, const TrialScope& scope, const TrialIndex& index) {
  Statement st(db,
               "SELECT trial_id, step, intermediate_value, intermediate_value_type "
               "FROM trial_intermediate_values WHERE " +
                   children_where(scope));
  bind_scope(st, scope);
  while (st.step()) {
    const auto it = index.find(st.int64(0));
    if (it == index.end()) continue;
    it->second->intermediate[static_cast<int>(st.int64(1))] =
        decode_value(st.optional_real(2), st.text(3));
  }
}

void read_attrs(SqliteDb& db, const char* table, const TrialScope& scope, const TrialIndex& index,
                Attrs TrialRecord::*attrs) {
  Statement st(db, std::string("SELECT trial_id, \"key\", value_json FROM ") + table + " WHERE " +
                       children_where(scope));
  bind_scope(st, scope);
  while (st.step()) {
    const auto it = index.find(st.int64(0));
    if (it != index.end()) (it->second->*attrs)[st.text(1)] = from_python_json(st.text(2));
  }
}

}  // namespace

std::vector<TrialRecord> read_trials(SqliteDb& db, const TrialScope& scope) {
  std::vector<TrialRecord> trials = read_trial_rows(db, scope);
  if (trials.empty()) return trials;
  TrialIndex index;
  for (auto& t : trials) index[t.id] = &t;
  // A change set's condition (a range OR a list) cost SQLite about 25 us in
  // each of the five queries below; the ids just read are a plain list.
  const TrialScope rows = scope.kind == TrialScope::Kind::kStudyChanged ? scope_of(trials) : scope;
  read_params(db, rows, index);
  read_values(db, rows, index);
  read_intermediate(db, rows, index);
  read_attrs(db, "trial_user_attributes", rows, index, &TrialRecord::user_attrs);
  read_attrs(db, "trial_system_attributes", rows, index, &TrialRecord::system_attrs);
  return trials;
}

}  // namespace hpo
