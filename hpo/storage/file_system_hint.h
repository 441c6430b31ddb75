// Why a database file might not be writable, in words: SQLite reports a
// full or read-only disk as "disk I/O error" or "unable to open database
// file", which tells a user nothing.
#ifndef HPO_STORAGE_FILE_SYSTEM_HINT_H_
#define HPO_STORAGE_FILE_SYSTEM_HINT_H_

#include <string>

namespace hpo {

// " (its file system is read-only)", " (its file system is full: 0 bytes
// free)", or "" when neither is the case, for the file system holding `path`.
std::string file_system_hint(const std::string& path);

}  // namespace hpo

#endif  // HPO_STORAGE_FILE_SYSTEM_HINT_H_
