#include "hpo/storage/sqlite_read_only.h"

#include <unistd.h>

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

bool sqlite_writable(const std::string& path) { return ::access(path.c_str(), W_OK) == 0; }

std::string sqlite_read_only_uri(const std::string& path) {
  std::error_code ec;
  const bool idle_wal = in_wal_mode(path) && !std::filesystem::exists(path + "-wal", ec);
  return "file:" + uri_escaped(path) + (idle_wal ? "?immutable=1" : "?mode=ro");
}

}  // namespace hpo
