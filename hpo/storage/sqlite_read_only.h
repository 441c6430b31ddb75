// How a read command (status, best, export, report) opens a study database
// it may read but not write: another user's on a shared box, or an archive
// on read-only media. SQLite's plain read-only mode cannot read a WAL
// database without its -shm file, and would create one, owned by this user,
// in the owner's directory; so a database with no writer gets opened as
// immutable instead.
#ifndef HPO_STORAGE_SQLITE_READ_ONLY_H_
#define HPO_STORAGE_SQLITE_READ_ONLY_H_

#include <cstdint>
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

// Whether `uri` (from sqlite_read_only_uri) opens the file as immutable.
bool is_immutable_uri(const std::string& uri);

// What a read on an immutable connection compares before and after: SQLite
// takes no lock on such a file and never looks for change, so an owner's run
// that came meanwhile (its -wal appeared, or its checkpoint rewrote the
// file) would leave the connection reading stale or torn pages.
struct FileStamp {
  uint64_t device = 0, inode = 0;
  int64_t size = -1;  // -1: the file could not be read
  int64_t modified_ns = 0, changed_ns = 0;  // mtime, ctime
  bool wal = false;  // a -wal file is beside it
  bool operator==(const FileStamp& o) const;
  bool operator!=(const FileStamp& o) const { return !(*this == o); }
  // Modified so lately that a change now might leave its mtime as it is:
  // timestamps move in clock ticks, and are as coarse as 2 s on some file
  // systems. Such a stamp cannot tell a file unchanged.
  bool recent() const;
};
FileStamp sqlite_file_stamp(const std::string& path);

}  // namespace hpo

#endif  // HPO_STORAGE_SQLITE_READ_ONLY_H_
