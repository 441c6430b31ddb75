// The names and numbers of Optuna's schema revisions that hpo knows, with
// no code to link: study files check `storage_revision:` against them
// without linking the storage library (optuna_revision.h has the rest).
#ifndef HPO_STORAGE_REVISION_NAMES_H_
#define HPO_STORAGE_REVISION_NAMES_H_

namespace hpo {

// Optuna 3.0 and 3.1 write v3.0.0.d and refuse any other revision.
constexpr const char* kRevisionOptuna30 = "v3.0.0.d";
// Optuna 3.2 up to 5.0 write v3.2.0.a (v3.0.0.d plus an index on
// trials.study_id) and refuse v3.0.0.d until it is upgraded.
constexpr const char* kRevisionOptuna32 = "v3.2.0.a";
// What hpo gives a new database.
constexpr const char* kNewestRevision = kRevisionOptuna32;

// version_info.schema_version: 12 since Optuna 2.x, frozen since alembic
// took over schema management.
constexpr int kOptunaSchemaVersion = 12;
// version_info.library_version of databases hpo creates or upgrades: the
// first Optuna release that writes kNewestRevision. Optuna only shows it in
// its "no longer compatible (set up by optuna X)" message, where "3.2.0"
// tells an Optuna 3.1 user which Optuna they need.
constexpr const char* kOptunaLibraryVersion = "3.2.0";

}  // namespace hpo

#endif  // HPO_STORAGE_REVISION_NAMES_H_
