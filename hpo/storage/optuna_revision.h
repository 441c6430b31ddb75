// Optuna's alembic revisions of its RDB schema: which ones hpo reads and
// writes, how it upgrades between them, and what it tells the user about the
// others. Nothing here depends on the SQL dialect, so every backend (SQLite,
// PostgreSQL) shares it; each backend runs the statements itself.
#ifndef HPO_STORAGE_OPTUNA_REVISION_H_
#define HPO_STORAGE_OPTUNA_REVISION_H_

#include <string>
#include <vector>

#include "hpo/storage/revision_names.h"

namespace hpo {

// Whether hpo reads and writes a database at `revision` without upgrading it,
// and can create one at it (hpo db init --revision, storage_revision:).
bool is_supported_revision(const std::string& revision);

// The revisions a new database may be created at, oldest first.
inline std::vector<std::string> supported_revisions() {
  return {kRevisionOptuna30, kRevisionOptuna32};
}

// Whether a new database at `revision` gets the index on trials.study_id
// (Optuna 3.2's `index=True`; v3.0.0.d has none).
inline bool has_study_id_index(const std::string& revision) {
  return revision != kRevisionOptuna30;
}

// version_info.library_version of a database hpo creates at `revision`: the
// first Optuna release that writes it (see kOptunaLibraryVersion).
inline const char* library_version_for(const std::string& revision) {
  return revision == kRevisionOptuna30 ? "3.0.0" : kOptunaLibraryVersion;
}

// Why a database at `revision` is refused and what the user can do, for a
// revision that is not supported; the caller adds the database's name.
std::string unsupported_revision_message(const std::string& revision);

// The statements, in order, that take a database from `revision` to
// kNewestRevision, as Optuna's own migrations make it: the same SQL in
// SQLite and PostgreSQL. Empty if it is already there. The caller runs them
// and then sets alembic_version and version_info, all in one transaction.
std::vector<std::string> upgrade_statements(const std::string& revision);

// Who can open a database at a supported `revision`, for `hpo db info`.
std::string revision_readers(const std::string& revision);

}  // namespace hpo

#endif  // HPO_STORAGE_OPTUNA_REVISION_H_
