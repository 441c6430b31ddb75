#include "hpo/run/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace hpo {

namespace fs = std::filesystem;

namespace {

// Why `dir` cannot hold a file: a file in its place, or the system's reason.
std::string unusable_directory(const fs::path& dir, const std::error_code& ec) {
  std::error_code ignored;
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, ignored) && !fs::is_directory(p, ignored))
      return p.string() + " is a file, not a directory";
    if (p == p.parent_path()) break;
  }
  return "cannot create " + dir.string() + ": " + ec.message();
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  const fs::path target(path);
  std::error_code ec;
  // "out/" names a directory: checked before anything is created for it.
  if (!path.empty() && path.back() == '/')
    throw std::runtime_error("cannot write " + path + ": it names a directory, not a file");
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec)
      throw std::runtime_error("cannot write " + path + ": " +
                               unusable_directory(target.parent_path(), ec));
  }
  const fs::path tmp = path + ".tmp";
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      // The reason is the system's (no permission, a full disk); the temporary
      // name is ours and means nothing to the user.
      const std::string why = std::strerror(errno != 0 ? errno : EIO);
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw std::runtime_error("cannot write " + path + ": " + why);
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignored;  // leave nothing half-done behind
    fs::remove(tmp, ignored);
    throw std::runtime_error("cannot write " + path + ": " + ec.message());
  }
}

}  // namespace hpo
