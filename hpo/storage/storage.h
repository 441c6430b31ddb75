// The study database, behind one interface so that backends (SQLite now,
// PostgreSQL later) can sit side by side. The data model is Optuna's RDB
// model: studies with a direction, trials with params, one objective value,
// intermediate values and JSON attributes.
#ifndef HPO_STORAGE_STORAGE_H_
#define HPO_STORAGE_STORAGE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "samplers/distribution.h"
#include "samplers/trial_view.h"

namespace hpo {

// Any failure to read or write the study database. The message names the
// database and what went wrong; nothing stored is changed by a failed call.
class StorageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Attrs = std::map<std::string, nlohmann::json>;

// Makes a write to a trial conditional on who runs it: the write happens
// only while the trial's system attribute `key` equals `value`, checked in
// the write's own transaction, so a worker that was cut off long enough for
// another to take its trial over cannot write over the new owner's run. An
// empty key guards nothing.
struct OwnerGuard {
  std::string key;
  nlohmann::json value;
};

// A guarded write refused: the trial's owner attribute holds `holder` now.
// Nothing was written.
class OwnershipLost : public StorageError {
 public:
  OwnershipLost(int64_t trial_id, nlohmann::json holder)
      : StorageError("trial " + std::to_string(trial_id) + " is owned by " + holder.dump() +
                     " now"),
        trial_id(trial_id),
        holder(std::move(holder)) {}
  int64_t trial_id;
  nlohmann::json holder;  // null when the attribute is gone
};

struct StudyRecord {
  int64_t id = 0;
  std::string name;
  Direction direction = Direction::kMaximize;  // objective 0's
  // Every objective's direction, in objective order (study_directions, one
  // row each, as Optuna stores them); `direction` is directions[0]. Empty in
  // a record made by hand: read it through objective_directions().
  std::vector<Direction> directions = {};
};

// The study's directions, one for a record that names only `direction`.
inline std::vector<Direction> objective_directions(const StudyRecord& s) {
  return s.directions.empty() ? std::vector<Direction>{s.direction} : s.directions;
}
inline bool is_multi_objective(const StudyRecord& s) { return s.directions.size() > 1; }

struct StudySummary {
  StudyRecord study;
  std::map<TrialState, int> counts;  // trials per state
  std::optional<double> best_value;  // over COMPLETE trials, by direction
};

struct StoredParam {
  std::string name;
  Distribution distribution;
  double internal = 0.0;  // see distribution.h
};

struct TrialRecord {
  int64_t id = 0;  // trials.trial_id: unique across studies
  int number = 0;  // 0, 1, 2, ... within the study
  TrialState state = TrialState::kRunning;
  std::vector<StoredParam> params;  // in the order they were stored
  std::optional<double> value;  // objective 0; +-inf allowed, never NaN
  // Every objective's value, in objective order (trial_values, one row
  // each); values[0] is `value`. Empty while the trial has none.
  std::vector<double> values;
  std::map<int, double> intermediate;
  Attrs user_attrs;
  Attrs system_attrs;
  std::string datetime_start;  // "YYYY-MM-DD HH:MM:SS.ffffff", local time, as Optuna
  std::string datetime_complete;  // empty while RUNNING
};

// Appends the next objective's value read from trial_values.
inline void add_value(TrialRecord& t, double v) {
  if (t.values.empty()) t.value = v;
  t.values.push_back(v);
}

struct NewTrial {
  std::vector<StoredParam> params;
  // The params, made from the new trial's number instead: a sampler seeds
  // its suggestion by the trial number, which the database hands out. Called
  // once the number is reserved (in its transaction on SQLite, after it on
  // PostgreSQL, so that no study lock is held while the sampler runs),
  // before derived_system_attrs; when set, `params` is unused.
  std::function<std::vector<StoredParam>(int number)> derived_params;
  Attrs user_attrs;
  Attrs system_attrs;
  // More system attributes, made from the new trial's id and number (its
  // run directory, say), stored with the params. It may be called again if
  // a transaction is retried: keep it free of side effects beyond its result.
  std::function<Attrs(const TrialRecord&)> derived_system_attrs;
  // Records the trial's first heartbeat as it is created, on the database's
  // clock at that moment (not at its transaction's start).
  bool heartbeat = false;
  // Where a trial is created in two transactions (PostgreSQL: its number,
  // then its params), the second writes only while this guard holds, and
  // create_trial throws OwnershipLost (or TrialNotRunning) otherwise: a
  // worker stalled in derived_params past the heartbeat grace may have had
  // the trial taken over by another, which owns it now. See OwnerGuard.
  OwnerGuard guard = {};
};

struct TrialOutcome {
  TrialState state = TrialState::kComplete;  // COMPLETE, PRUNED or FAIL
  std::optional<double> value;  // required for COMPLETE
  Attrs user_attrs;  // merged into the trial's attributes
  Attrs system_attrs;
  // New values for some of the trial's params, each inside its stored
  // distribution: the values that ran, when they differ from the sampled
  // ones (an out-of-memory retry at a smaller batch).
  std::vector<StoredParam> params = {};
  OwnerGuard guard = {};  // see OwnerGuard: finish_trial throws OwnershipLost when it fails
  // Last, so that older aggregate initializers keep their meaning.
  // A multi-objective study's values, one per objective, in objective order:
  // when set, `value` must be values[0].
  std::vector<double> values = {};
};

// The values a finished trial stores: `values`, or `value` alone.
inline std::vector<double> outcome_values(const TrialOutcome& o) {
  if (!o.values.empty()) return o.values;
  if (o.value) return {*o.value};
  return {};
}

class Storage {
 public:
  virtual ~Storage() = default;

  // A description for messages, e.g. "sqlite:///hpo.db".
  virtual std::string url() const = 0;

  // Optuna's schema revision of the database (see optuna_revision.h). A
  // database opens at any revision hpo supports and stays there until
  // upgrade_schema: Optuna 3.1 refuses the newer one.
  virtual std::string schema_revision() = 0;  // the alembic revision, e.g. "v3.2.0.a"
  virtual bool upgrade_schema() = 0;  // upgrades to the newest revision hpo writes, in one
                                      // transaction; false if it was already current

  virtual std::optional<StudyRecord> find_study(const std::string& name) = 0;
  // Returns the study, creating it if absent with one study_directions row
  // per objective. Throws StorageError if it exists with other directions.
  virtual StudyRecord get_or_create_study(const std::string& name,
                                          const std::vector<Direction>& directions) = 0;
  StudyRecord get_or_create_study(const std::string& name, Direction direction) {
    return get_or_create_study(name, std::vector<Direction>{direction});
  }
  virtual std::vector<StudySummary> list_studies() = 0;

  virtual void set_study_user_attr(int64_t study_id, const std::string& key,
                                   const nlohmann::json& value) = 0;
  virtual Attrs study_user_attrs(int64_t study_id) = 0;

  // Creates a RUNNING trial with the study's next number, with its params,
  // attributes and first heartbeat. Safe across threads and processes:
  // concurrent callers always get distinct numbers. If it throws, no new
  // trial is left RUNNING (short of a database that cannot be reached: see
  // PgStorage).
  virtual TrialRecord create_trial(int64_t study_id, const NewTrial& trial) = 0;

  // Records the objective at `step`; a second report for the same step
  // replaces it. Throws OwnershipLost if `guard` does not hold.
  virtual void set_intermediate_value(int64_t trial_id, int step, double value,
                                      const OwnerGuard& guard) = 0;
  void set_intermediate_value(int64_t trial_id, int step, double value) {
    set_intermediate_value(trial_id, step, value, OwnerGuard{});
  }

  // Sets several system attributes in one transaction. Throws OwnershipLost
  // if `guard` does not hold.
  virtual void set_trial_system_attrs(int64_t trial_id, const Attrs& attrs,
                                      const OwnerGuard& guard) = 0;
  void set_trial_system_attrs(int64_t trial_id, const Attrs& attrs) {
    set_trial_system_attrs(trial_id, attrs, OwnerGuard{});
  }
  void set_trial_system_attr(int64_t trial_id, const std::string& key, const nlohmann::json& value,
                             const OwnerGuard& guard = {}) {
    set_trial_system_attrs(trial_id, {{key, value}}, guard);
  }

  // Sets system attribute `key` to `desired` only if its current value equals
  // `expected` and the trial is still RUNNING; atomic. Used to take over a
  // trial whose owner died without two processes both taking it.
  virtual bool compare_and_set_trial_system_attr(int64_t trial_id, const std::string& key,
                                                 const nlohmann::json& expected,
                                                 const nlohmann::json& desired) = 0;

  // Takes a RUNNING trial over: sets system attribute `to.key` to `to.value`
  // if it still holds `from` and, with `stale_after_s`, the trial's last
  // heartbeat is older than that (a trial without one is never stale), and
  // records the new owner's first heartbeat, all in one transaction: no
  // other worker finds the trial stale between the two, and none takes over
  // a trial whose beat is fresh.
  virtual bool take_over_trial(int64_t trial_id, const nlohmann::json& from, const OwnerGuard& to,
                               std::optional<double> stale_after_s) = 0;

  // Marks the trial's owner as alive now (Optuna's trial_heartbeats, on the
  // database's clock, so hosts with skewed clocks still agree). Throws
  // OwnershipLost if `guard` does not hold: a beat is how a worker that was
  // cut off learns that its trial was taken over. Throws TrialNotRunning,
  // writing nothing, once the trial has ended: how a worker learns that
  // another client ended it while a trainer that reports nothing ran.
  virtual void record_heartbeat(int64_t trial_id, const OwnerGuard& guard) = 0;
  void record_heartbeat(int64_t trial_id) { record_heartbeat(trial_id, OwnerGuard{}); }
  // RUNNING trials of the study whose last heartbeat is older than
  // `grace_s` seconds. Trials that never had a heartbeat are not listed.
  virtual std::vector<int64_t> stale_trials(int64_t study_id, double grace_s) = 0;

  // Ends a RUNNING trial with its state, value and attributes in one
  // transaction. Returns false (and changes nothing) if the trial is not
  // RUNNING; throws OwnershipLost (changing nothing) if outcome.guard does
  // not hold.
  virtual bool finish_trial(int64_t trial_id, const TrialOutcome& outcome) = 0;

  virtual std::optional<TrialRecord> trial(int64_t trial_id) = 0;
  // All trials of a study, ordered by number.
  virtual std::vector<TrialRecord> trials(int64_t study_id) = 0;
  // The study's trials created after trial id `after_trial_id`, and the
  // trials `also` (say, those running when the caller last looked): what
  // may have changed since, so that a long study is not re-read whole.
  virtual std::vector<TrialRecord> trials_changed(int64_t study_id, int64_t after_trial_id,
                                                  const std::vector<int64_t>& also) = 0;
};

}  // namespace hpo

#endif  // HPO_STORAGE_STORAGE_H_
