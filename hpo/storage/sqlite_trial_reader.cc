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

// The WHERE conditions selecting the scope's rows: in `trials` itself and in
// the tables keyed by trial_id. Both bind the scope's id as ?1.
std::string trials_where(TrialScope scope) {
  return scope == TrialScope::kStudy ? "study_id = ?1" : "trial_id = ?1";
}

std::string children_where(TrialScope scope) {
  return scope == TrialScope::kStudy
             ? "trial_id IN (SELECT trial_id FROM trials WHERE study_id = ?1)"
             : "trial_id = ?1";
}

std::vector<TrialRecord> read_trial_rows(SqliteDb& db, TrialScope scope, int64_t id) {
  Statement st(db,
               "SELECT trial_id, number, state, datetime_start, datetime_complete FROM trials "
               "WHERE " +
                   trials_where(scope) + " ORDER BY number, trial_id");
  st.bind(1, id);
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

void read_params(SqliteDb& db, TrialScope scope, int64_t id, const TrialIndex& index) {
  Statement st(db,
               "SELECT trial_id, param_name, param_value, distribution_json FROM trial_params "
               "WHERE " +
                   children_where(scope) + " ORDER BY param_id");
  st.bind(1, id);
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

void read_values(SqliteDb& db, TrialScope scope, int64_t id, const TrialIndex& index) {
  Statement st(db,
               "SELECT trial_id, value, value_type FROM trial_values "
               "WHERE objective = 0 AND " +
                   children_where(scope));
  st.bind(1, id);
  while (st.step()) {
    const auto it = index.find(st.int64(0));
    if (it != index.end()) it->second->value = decode_value(st.optional_real(1), st.text(2));
  }
}

void read_intermediate(SqliteDb& db, TrialScope scope, int64_t id, const TrialIndex& index) {
  Statement st(db,
               "SELECT trial_id, step, intermediate_value, intermediate_value_type "
               "FROM trial_intermediate_values WHERE " +
                   children_where(scope));
  st.bind(1, id);
  while (st.step()) {
    const auto it = index.find(st.int64(0));
    if (it == index.end()) continue;
    it->second->intermediate[static_cast<int>(st.int64(1))] =
        decode_value(st.optional_real(2), st.text(3));
  }
}

void read_attrs(SqliteDb& db, const char* table, TrialScope scope, int64_t id,
                const TrialIndex& index, Attrs TrialRecord::*attrs) {
  Statement st(db, std::string("SELECT trial_id, \"key\", value_json FROM ") + table + " WHERE " +
                       children_where(scope));
  st.bind(1, id);
  while (st.step()) {
    const auto it = index.find(st.int64(0));
    if (it != index.end()) (it->second->*attrs)[st.text(1)] = from_python_json(st.text(2));
  }
}

}  // namespace

std::vector<TrialRecord> read_trials(SqliteDb& db, TrialScope scope, int64_t id) {
  std::vector<TrialRecord> trials = read_trial_rows(db, scope, id);
  TrialIndex index;
  for (auto& t : trials) index[t.id] = &t;
  read_params(db, scope, id, index);
  read_values(db, scope, id, index);
  read_intermediate(db, scope, id, index);
  read_attrs(db, "trial_user_attributes", scope, id, index, &TrialRecord::user_attrs);
  read_attrs(db, "trial_system_attributes", scope, id, index, &TrialRecord::system_attrs);
  return trials;
}

}  // namespace hpo
