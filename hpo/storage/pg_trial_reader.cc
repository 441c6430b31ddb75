#include "hpo/storage/pg_trial_reader.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "hpo/storage/optuna_codec.h"
#include "hpo/storage/pg_prepared.h"

namespace hpo {

// Datetimes as TrialRecord holds them (and SQLite stores them): always six
// fractional digits, which PostgreSQL's text form drops when zero.
const char kPgTrialColumns[] =
    "trial_id, number, state, to_char(datetime_start, 'YYYY-MM-DD HH24:MI:SS.US'), "
    "to_char(datetime_complete, 'YYYY-MM-DD HH24:MI:SS.US')";

namespace {

using PgTrialIndex = std::unordered_map<int64_t, TrialRecord*>;

std::string text(const pqxx::field& f) { return f.is_null() ? std::string() : f.c_str(); }

std::optional<double> optional_real(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<double>();
}

// Runs `sql` (with $1 = the trial ids as an int[]) and hands each row with
// its trial to `add`.
template <typename Add>
void for_each_child(pqxx::work& tx, const std::string& sql, const std::string& ids,
                    const PgTrialIndex& index, Add&& add) {
  for (const auto& row : exec_prepared_sql(tx, sql, ids)) {
    const auto it = index.find(row[0].as<int64_t>());
    if (it != index.end()) add(*it->second, row);
  }
}

}  // namespace

std::vector<TrialRecord> read_pg_trials(pqxx::work& tx, const pqxx::result& rows) {
  std::vector<TrialRecord> trials;
  trials.reserve(rows.size());
  for (const auto& row : rows) {
    TrialRecord t;
    t.id = row[0].as<int64_t>();
    t.number = row[1].as<int>();
    t.state = trial_state_from_string(row[2].c_str());
    t.datetime_start = text(row[3]);
    t.datetime_complete = text(row[4]);
    trials.push_back(std::move(t));
  }
  if (trials.empty()) return trials;
  PgTrialIndex index;
  std::string ids = "{";
  for (auto& t : trials) {
    index[t.id] = &t;
    ids += (ids.size() > 1 ? "," : "") + std::to_string(t.id);
  }
  ids += "}";

  // Every trial of a study usually repeats the same few distributions.
  std::map<std::string, Distribution> decoded;
  for_each_child(tx,
                 "SELECT trial_id, param_name, param_value, distribution_json FROM trial_params "
                 "WHERE trial_id = ANY($1::int[]) ORDER BY param_id",
                 ids, index, [&](TrialRecord& t, const pqxx::row& r) {
                   const std::string json = r[3].c_str();
                   auto dist = decoded.find(json);
                   if (dist == decoded.end())
                     dist = decoded.emplace(json, decode_distribution(json)).first;
                   t.params.push_back(StoredParam{r[1].c_str(), dist->second, r[2].as<double>()});
                 });
  for_each_child(tx,
                 "SELECT trial_id, value, value_type FROM trial_values "
                 "WHERE trial_id = ANY($1::int[]) ORDER BY trial_id, objective",
                 ids, index, [](TrialRecord& t, const pqxx::row& r) {
                   add_value(t, decode_value(optional_real(r[1]), r[2].c_str()));
                 });
  for_each_child(tx,
                 "SELECT trial_id, step, intermediate_value, intermediate_value_type "
                 "FROM trial_intermediate_values WHERE trial_id = ANY($1::int[])",
                 ids, index, [](TrialRecord& t, const pqxx::row& r) {
                   t.intermediate[r[1].as<int>()] = decode_value(optional_real(r[2]), r[3].c_str());
                 });
  for (const auto& [table, attrs] :
       {std::pair{"trial_user_attributes", &TrialRecord::user_attrs},
        std::pair{"trial_system_attributes", &TrialRecord::system_attrs}}) {
    for_each_child(tx,
                   std::string("SELECT trial_id, key, value_json FROM ") + table +
                       " WHERE trial_id = ANY($1::int[])",
                   ids, index, [attrs = attrs](TrialRecord& t, const pqxx::row& r) {
                     (t.*attrs)[r[1].c_str()] = from_python_json(r[2].c_str());
                   });
  }
  return trials;
}

}  // namespace hpo
