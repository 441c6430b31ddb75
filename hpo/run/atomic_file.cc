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
  write_files_atomically({{path, text}});
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<fs::path> staged;
  auto fail = [&](const std::string& path, const std::string& why) {
    std::error_code ignored;  // leave nothing half-done behind
    for (const auto& tmp : staged) fs::remove(tmp, ignored);
    throw std::runtime_error("cannot write " + path + ": " + why);
  };
  for (const auto& [path, text] : files) {
    const fs::path target(path);
    std::error_code ec;
    // "out/" names a directory: checked before anything is created for it.
    if (!path.empty() && path.back() == '/') fail(path, "it names a directory, not a file");
    if (fs::is_directory(target, ec)) fail(path, "a directory is in its place");
    if (target.has_parent_path()) {
      fs::create_directories(target.parent_path(), ec);
      if (ec) fail(path, unusable_directory(target.parent_path(), ec));
    }
    const fs::path tmp = path + ".tmp";
    errno = 0;
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) staged.push_back(tmp);
    out << text;
    out.flush();
    // The reason is the system's (no permission, a full disk); the temporary
    // name is ours and means nothing to the user.
    if (!out) fail(path, std::strerror(errno != 0 ? errno : EIO));
  }
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    fs::rename(staged[i], files[i].first, ec);
    if (ec) {
      staged.erase(staged.begin(), staged.begin() + static_cast<std::ptrdiff_t>(i));
      fail(files[i].first, ec.message());
    }
  }
}

}  // namespace hpo
