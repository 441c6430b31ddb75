#include "hpo/storage/sqlite_read_only.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace hpo {

namespace {

// Bytes 18 and 19 of a SQLite file's header are its read and write format
// versions: 2 in WAL mode, 1 with a rollback journal.
bool in_wal_mode(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[20] = {};
  return in.read(header, sizeof header) && header[18] == 2 && header[19] == 2;
}

// RFC 3986 leaves these meaningful in a path; SQLite's URI parser decodes
// %HH escapes.
std::string uri_escaped(const std::string& path) {
  std::string out;
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static const char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[(c >> 4) & 0xF];
      out += kHex[c & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

bool sqlite_writable(const std::string& path) {
  // SQLite writes its -wal, -shm and -journal files beside the database, so
  // a writable file in a directory this process cannot write is read-only.
  std::error_code ec;
  std::string dir = std::filesystem::absolute(path, ec).parent_path().string();
  if (ec || dir.empty()) dir = ".";
  return ::access(path.c_str(), W_OK) == 0 && ::access(dir.c_str(), W_OK) == 0;
}

std::string sqlite_read_only_uri(const std::string& path) {
  std::error_code ec;
  const bool idle_wal = in_wal_mode(path) && !std::filesystem::exists(path + "-wal", ec);
  // An absolute path gets an empty authority ("file:///x"): "file://x/..."
  // would read x as a host name, which SQLite refuses.
  const std::string prefix = path.rfind('/', 0) == 0 ? "file://" : "file:";
  return prefix + uri_escaped(path) + (idle_wal ? "?immutable=1" : "?mode=ro");
}

bool is_immutable_uri(const std::string& uri) {
  const std::string tail = "?immutable=1";
  return uri.size() >= tail.size() && uri.compare(uri.size() - tail.size(), tail.size(), tail) == 0;
}

bool FileStamp::operator==(const FileStamp& o) const {
  return device == o.device && inode == o.inode && size == o.size && modified_ns == o.modified_ns &&
         changed_ns == o.changed_ns && wal == o.wal;
}

bool FileStamp::recent() const {
  struct timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  const int64_t now_ns = int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
  return std::max(modified_ns, changed_ns) > now_ns - int64_t{3} * 1000000000;
}

FileStamp sqlite_file_stamp(const std::string& path) {
  FileStamp stamp;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    stamp.device = st.st_dev;
    stamp.inode = st.st_ino;
    stamp.size = st.st_size;
    stamp.modified_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
    stamp.changed_ns = int64_t{st.st_ctim.tv_sec} * 1000000000 + st.st_ctim.tv_nsec;
  }
  stamp.wal = ::access((path + "-wal").c_str(), F_OK) == 0;
  return stamp;
}

}  // namespace hpo
