// The study database on a PostgreSQL server, in Optuna's RDB schema, so
// that Optuna (postgresql+psycopg2://...) and hpo share studies, and many
// hosts run one study at once.
//
// One object holds one connection for its calls, which threads share under a
// mutex, and opens a second one for heartbeats on the first beat: a worker
// process uses two connections however many trials it runs at once, and its
// heartbeats never wait behind its other calls. Every call is one
// transaction (create_trial two, see below), each bounded in how long it
// waits for a lock or holds one (pg_session_bounds.h), retried whole on a lost connection, a
// deadlock or a serialization failure (PgConnection). Writes whose commit
// was lost in flight are retried without writing twice: create_trial finds
// the trial it made by a token stored with it, finish_trial accepts its own
// earlier outcome. Heartbeats are on the server's clock, in its default
// time zone as Optuna keeps them (see kServerNow).
#ifndef HPO_STORAGE_PG_STORAGE_H_
#define HPO_STORAGE_PG_STORAGE_H_

#include <memory>
#include <mutex>
#include <string>

#include "hpo/storage/optuna_revision.h"
#include "hpo/storage/storage.h"

namespace hpo {

class PgConnection;

class PgStorage : public Storage {
 public:
  // Connects to `url` (postgresql://... or postgresql+DRIVER://...) and
  // creates Optuna's schema in a database without tables (unless
  // `create_schema` is false, for commands that only read), at
  // `new_revision`. Throws
  // StorageError naming the URL with its password masked: the server cannot
  // be reached, refuses the login, or holds no or another schema.
  explicit PgStorage(const std::string& url, bool create_schema = true,
                     const std::string& new_revision = kNewestRevision);
  ~PgStorage() override;

  std::string url() const override;  // the password masked as ***

  std::optional<StudyRecord> find_study(const std::string& name) override;
  using Storage::get_or_create_study;
  StudyRecord get_or_create_study(const std::string& name,
                                  const std::vector<Direction>& directions) override;
  std::vector<StudySummary> list_studies() override;

  void set_study_user_attr(int64_t study_id, const std::string& key,
                           const nlohmann::json& value) override;
  Attrs study_user_attrs(int64_t study_id) override;

  // Numbers are the count of the study's trials, taken under a row lock on
  // the study, so hosts creating trials at once get distinct numbers. The
  // lock is held only by a short first transaction (the number, the fixed
  // attributes, the first beat); what is made from the number (the
  // sampler's ask) is made after it commits and stored by a second. If that
  // fails, the trial is set to FAIL, as far as the database can be reached.
  TrialRecord create_trial(int64_t study_id, const NewTrial& trial) override;
  void set_intermediate_value(int64_t trial_id, int step, double value,
                              const OwnerGuard& guard) override;
  using Storage::set_intermediate_value;
  void set_trial_system_attrs(int64_t trial_id, const Attrs& attrs,
                              const OwnerGuard& guard) override;
  using Storage::set_trial_system_attrs;
  bool compare_and_set_trial_system_attr(int64_t trial_id, const std::string& key,
                                         const nlohmann::json& expected,
                                         const nlohmann::json& desired) override;
  bool finish_trial(int64_t trial_id, const TrialOutcome& outcome) override;
  bool take_over_trial(int64_t trial_id, const nlohmann::json& from, const OwnerGuard& to,
                       std::optional<double> stale_after_s) override;
  void record_heartbeat(int64_t trial_id, const OwnerGuard& guard) override;
  using Storage::record_heartbeat;
  std::vector<int64_t> stale_trials(int64_t study_id, double grace_s) override;

  std::optional<TrialRecord> trial(int64_t trial_id) override;
  std::vector<TrialRecord> trials(int64_t study_id) override;
  std::vector<TrialRecord> trials_changed(int64_t study_id, int64_t after_trial_id,
                                          const std::vector<int64_t>& also) override;

  // The alembic revision: v3.0.0.d (made by Optuna 3.1) or v3.2.0.a.
  std::string schema_revision() override;
  // Upgrades v3.0.0.d to v3.2.0.a in one transaction; false if current.
  bool upgrade_schema() override;

 private:
  template <typename Body>
  auto transact(const char* what, Body&& body);

  TrialRecord reserve_trial(int64_t study_id, const NewTrial& trial);
  void complete_trial(TrialRecord& t, const NewTrial& trial);
  void fail_incomplete(int64_t trial_id, const OwnerGuard& guard, const std::string& why);

  std::mutex mu_;  // guards conn_: one connection, one transaction at a time
  std::unique_ptr<PgConnection> conn_;
  std::mutex beat_mu_;  // guards beat_conn_, heartbeats' own connection
  std::unique_ptr<PgConnection> beat_conn_;
};

}  // namespace hpo

#endif  // HPO_STORAGE_PG_STORAGE_H_
