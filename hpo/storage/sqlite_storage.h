// The study database in one SQLite file, in Optuna's schema, so that
// `optuna.load_study(storage="sqlite:///FILE")` reads what hpo writes and
// the other way round.
//
// One object may be shared by many threads (calls are serialized on its one
// connection); separate processes each open their own object on the same
// file. The file runs in WAL mode, every write is a BEGIN IMMEDIATE
// transaction, and lock contention beyond SQLite's busy timeout is retried
// with jittered backoff before it becomes a StorageError.
#ifndef HPO_STORAGE_SQLITE_STORAGE_H_
#define HPO_STORAGE_SQLITE_STORAGE_H_

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "hpo/storage/optuna_revision.h"
#include "hpo/storage/sqlite_read_only.h"
#include "hpo/storage/storage.h"

namespace hpo {

class SqliteDb;

class SqliteStorage : public Storage {
 public:
  // Opens the database file at `path`, creating it with Optuna's schema if it
  // is new; its directory must exist. Throws StorageError if the file cannot
  // be opened, is not a SQLite database, or holds another schema version; the
  // file is then left as it was. A new database gets `new_revision`'s schema.
  // `busy_timeout` is how long SQLite waits for another connection's lock
  // before a transaction is retried (tests shorten it).
  // Opened read-only (sqlite_read_only.h), the file must hold the schema
  // already, and every write throws StorageError. kReadOnlyIfNeeded opens so
  // a file this process may not write (read commands); kReadOnly any file.
  enum class Access { kReadWrite, kReadOnlyIfNeeded, kReadOnly };
  explicit SqliteStorage(const std::string& path,
                         std::chrono::milliseconds busy_timeout = std::chrono::seconds(10),
                         const std::string& new_revision = kNewestRevision,
                         Access access = Access::kReadWrite);
  ~SqliteStorage() override;

  std::string url() const override { return url_; }
  std::string schema_revision() override;
  bool upgrade_schema() override;

  std::optional<StudyRecord> find_study(const std::string& name) override;
  using Storage::get_or_create_study;
  StudyRecord get_or_create_study(const std::string& name,
                                  const std::vector<Direction>& directions) override;
  std::vector<StudySummary> list_studies() override;

  void set_study_user_attr(int64_t study_id, const std::string& key,
                           const nlohmann::json& value) override;
  Attrs study_user_attrs(int64_t study_id) override;

  TrialRecord create_trial(int64_t study_id, const NewTrial& trial) override;
  // Throws StorageError if the trial is not RUNNING, as Optuna does.
  void set_intermediate_value(int64_t trial_id, int step, double value,
                              const OwnerGuard& guard) override;
  using Storage::set_intermediate_value;
  // Allowed in any state, so that finished trials can still be annotated.
  void set_trial_system_attrs(int64_t trial_id, const Attrs& attrs,
                              const OwnerGuard& guard) override;
  using Storage::set_trial_system_attrs;
  // An absent attribute compares equal to `expected` null.
  bool compare_and_set_trial_system_attr(int64_t trial_id, const std::string& key,
                                         const nlohmann::json& expected,
                                         const nlohmann::json& desired) override;
  bool take_over_trial(int64_t trial_id, const nlohmann::json& from, const OwnerGuard& to,
                       std::optional<double> stale_after_s) override;
  bool finish_trial(int64_t trial_id, const TrialOutcome& outcome) override;
  void record_heartbeat(int64_t trial_id, const OwnerGuard& guard) override;
  using Storage::record_heartbeat;
  std::vector<int64_t> stale_trials(int64_t study_id, double grace_s) override;

  std::optional<TrialRecord> trial(int64_t trial_id) override;
  std::vector<TrialRecord> trials(int64_t study_id) override;
  std::vector<TrialRecord> trials_changed(int64_t study_id, int64_t after_trial_id,
                                          const std::vector<int64_t>& also) override;

 private:
  // Runs `body` in a transaction under the connection mutex; see retrying().
  template <typename Body>
  auto read(const char* what, Body&& body);
  template <typename Body>
  auto write(const char* what, Body&& body);
  // Runs `fn`, again from the start on lock contention; any failure becomes
  // a StorageError naming the database and `what`. The caller holds mu_.
  template <typename Fn>
  auto retrying(const char* what, Fn&& fn);

  // Opens db_ read-only, as immutable where sqlite_read_only_uri says so,
  // and then keeps the file's stamp in immutable_at_.
  void open_read_only();
  // Whether the file an immutable connection reads has changed since it was
  // opened: what it read may be stale or torn.
  bool changed_under_immutable() const;

  std::string path_;
  std::string url_;
  std::mutex mu_;  // guards db_: one connection, one statement at a time
  std::unique_ptr<SqliteDb> db_;
  std::optional<FileStamp> immutable_at_;  // set while db_ is immutable
  std::chrono::milliseconds busy_timeout_;
};

}  // namespace hpo

#endif  // HPO_STORAGE_SQLITE_STORAGE_H_
