#include "hpo/storage/file_system_hint.h"

#include <sys/statvfs.h>

#include <filesystem>

namespace hpo {

namespace {
// Less than this is "full" for a database: a transaction and its WAL pages
// need room to grow.
constexpr unsigned long long kFullBelowBytes = 256 * 1024;
}  // namespace

std::string file_system_hint(const std::string& path) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
  struct statvfs fs;
  if (ec || ::statvfs(dir.c_str(), &fs) != 0) return "";
  if (fs.f_flag & ST_RDONLY) return " (its file system is read-only)";
  const unsigned long long free_bytes = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes < kFullBelowBytes) {
    return " (its file system is full: " + std::to_string(free_bytes) + " bytes free)";
  }
  return "";
}

}  // namespace hpo
