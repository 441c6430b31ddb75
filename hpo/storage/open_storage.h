// Opens a study database from a URL in SQLAlchemy's form, as Optuna takes it.
#ifndef HPO_STORAGE_OPEN_STORAGE_H_
#define HPO_STORAGE_OPEN_STORAGE_H_

#include <memory>
#include <string>

#include "hpo/storage/storage.h"

namespace hpo {

// "sqlite:///relative/path.db" or "sqlite:////absolute/path.db"; the
// database file's directory is created if missing. Throws StorageError for
// other URLs (PostgreSQL is not supported yet) and for databases that cannot
// be opened.
std::unique_ptr<Storage> open_storage(const std::string& url);

}  // namespace hpo

#endif  // HPO_STORAGE_OPEN_STORAGE_H_
