#include "hpo/run/same_file.h"

#include <filesystem>

namespace hpo {

namespace fs = std::filesystem;

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
  const fs::path x = fs::weakly_canonical(fs::absolute(a, ec), ec);
  if (ec) return false;
  const fs::path y = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ec && x == y;
}

}  // namespace hpo
