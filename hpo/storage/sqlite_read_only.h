// How a read command (status, best, export, report) opens a study database
// it may read but not write: another user's on a shared box, or an archive
// on read-only media. SQLite's plain read-only mode cannot read a WAL
// database without its -shm file, and would create one, owned by this user,
// in the owner's directory; so a database with no writer gets opened as
// immutable instead.
#ifndef HPO_STORAGE_SQLITE_READ_ONLY_H_
#define HPO_STORAGE_SQLITE_READ_ONLY_H_

#include <string>

namespace hpo {

// Whether this process may write `path` (its file, or its file system).
bool sqlite_writable(const std::string& path);

// The "file:" URI to open `path` read-only with SQLITE_OPEN_URI:
// "?immutable=1" for a WAL database with no -wal file (no connection has it
// open, and nothing is left to replay), "?mode=ro" otherwise (a writer's
// -wal and -shm are read as they are; a rollback-journal database needs no
// other file).
std::string sqlite_read_only_uri(const std::string& path);

}  // namespace hpo

#endif  // HPO_STORAGE_SQLITE_READ_ONLY_H_
