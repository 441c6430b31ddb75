// Why a database file might not be writable, in words: SQLite reports a
// full or read-only disk as "disk I/O error" or "unable to open database
// file", which tells a user nothing.
#ifndef HPO_STORAGE_FILE_SYSTEM_HINT_H_
#define HPO_STORAGE_FILE_SYSTEM_HINT_H_

#include <cstdint>
#include <string>

namespace hpo {

// " (it is a directory: ...)", " (its file system is read-only)", " (its
// file system is full: 0 bytes free)", else permission_hint(path), for the
// file system holding `path`.
std::string file_system_hint(const std::string& path);

// Why this user cannot open or write the SQLite database at `path`: the file
// itself, its -wal or -shm file (another user's), or its directory (where
// SQLite creates those) not writable to this user; "" when none is the case.
std::string permission_hint(const std::string& path);

// The name of a network file system type ("nfs", "cifs", "ceph", ...) by
// its statfs magic number, or "" for any other type. FUSE is not counted:
// it serves sshfs but also local overlays, and cannot be told apart.
std::string network_file_system_name(int64_t magic);

// The network file system that holds `path` (or, when it does not exist
// yet, its nearest existing parent directory), or "" when it is local or
// cannot be told. SQLite's locks and WAL need one machine's kernel: on a
// network file system a database can be corrupted.
std::string network_file_system(const std::string& path);

}  // namespace hpo

#endif  // HPO_STORAGE_FILE_SYSTEM_HINT_H_
