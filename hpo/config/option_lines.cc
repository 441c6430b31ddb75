#include "hpo/config/option_lines.h"

namespace hpo {

std::string OptionLines::where(const std::string& file, const std::string& key) const {
  for (const std::string& k : {key, std::string("name")}) {
    const auto it = lines.find(k);
    if (it != lines.end() && it->second > 0) return file + ":" + std::to_string(it->second);
  }
  return file;
}

}  // namespace hpo
