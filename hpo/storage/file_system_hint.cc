#include "hpo/storage/file_system_hint.h"

#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>

namespace hpo {

namespace {
// Less than this is "full" for a database: a transaction and its WAL pages
// need room to grow.
constexpr unsigned long long kFullBelowBytes = 256 * 1024;
// Magic numbers from linux/magic.h, and those of cluster file systems that
// keep theirs out of the kernel tree.
struct NetworkFs {
  int64_t magic;
  const char* name;
};
constexpr NetworkFs kNetworkFs[] = {
    {0x6969, "nfs"},       {0x517B, "smb"},        {0xFF534D42, "cifs"},     {0xFE534D42, "smb2"},
    {0x00C36400, "ceph"},  {0x5346414F, "afs"},    {0x6B414653, "afs"},      {0x73757245, "coda"},
    {0x01021997, "9p"},    {0x0BD00BD0, "lustre"}, {0x47504653, "gpfs"},     {0x19830326, "beegfs"},
    {0x7461636F, "ocfs2"}, {0x01161970, "gfs2"},   {0x20030528, "orangefs"}, {0xAAD7AAEA, "panfs"},
};

}  // namespace

std::string network_file_system_name(int64_t magic) {
  // f_type is a signed word on some ABIs: compare the low 32 bits.
  const uint32_t low = static_cast<uint32_t>(magic);
  for (const auto& fs : kNetworkFs) {
    if (static_cast<uint32_t>(fs.magic) == low) return fs.name;
  }
  return "";
}

std::string network_file_system(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  if (ec) return "";
  while (!std::filesystem::exists(p, ec) && p.has_parent_path() && p != p.parent_path())
    p = p.parent_path();
  struct statfs fs;
  if (::statfs(p.c_str(), &fs) != 0) return "";
  return network_file_system_name(static_cast<int64_t>(fs.f_type));
}

std::string file_system_hint(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return " (it is a directory: name a database file, as sqlite:///" +
           (std::filesystem::path(path) / "hpo.db").string() + ")";
  }
  std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
  struct statvfs fs;
  if (ec || ::statvfs(dir.c_str(), &fs) != 0) return "";
  if (fs.f_flag & ST_RDONLY) return " (its file system is read-only)";
  const unsigned long long free_bytes = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes < kFullBelowBytes) {
    return " (its file system is full: " + std::to_string(free_bytes) + " bytes free)";
  }
  return permission_hint(path);
}

std::string permission_hint(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    if (::access(path.c_str(), R_OK) != 0) return " (" + path + ": permission denied)";
    if (::access(path.c_str(), W_OK) != 0) return " (" + path + " is read-only to you)";
  }
  // SQLite keeps a WAL database's -wal and -shm files beside it; another
  // user's left behind, or a directory it cannot write, stops it as surely.
  for (const char* suffix : {"-wal", "-shm"}) {
    const std::string side = path + suffix;
    if (std::filesystem::exists(side, ec) && ::access(side.c_str(), W_OK) != 0)
      return " (" + side + " is read-only to you: another user's hpo created it)";
  }
  const std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
  if (!ec && ::access(dir.c_str(), W_OK) != 0) {
    return " (its directory " + dir.string() +
           " is read-only to you, and SQLite creates the database's -wal and -shm files there)";
  }
  return "";
}

}  // namespace hpo
