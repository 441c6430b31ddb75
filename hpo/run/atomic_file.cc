#include "hpo/run/atomic_file.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace hpo {

namespace fs = std::filesystem;

void write_file_atomically(const std::string& path, const std::string& text) {
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  const fs::path tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignored;  // leave nothing half-done behind
    fs::remove(tmp, ignored);
    throw std::runtime_error("cannot rename " + tmp.string() + " to " + path + ": " + ec.message());
  }
}

}  // namespace hpo
