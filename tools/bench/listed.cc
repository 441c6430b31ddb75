#include "tools/bench/listed.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace hpo {

std::vector<std::string> listed(const char* variable, const std::vector<std::string>& all,
                                const std::vector<std::string>& named_only) {
  const char* env = std::getenv(variable);
  if (!env || !*env) return all;  // empty: all, as on the peers' side (peers.py)
  std::vector<std::string> known = all, out;
  known.insert(known.end(), named_only.begin(), named_only.end());
  std::stringstream in(env);
  for (std::string name; std::getline(in, name, ',');) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      // A typo must stop the run here, not after the other side's minutes.
      std::string text;
      for (const auto& n : known) text += (text.empty() ? "" : ", ") + n;
      std::fprintf(stderr, "%s: no '%s' (known: %s)\n", variable, name.c_str(), text.c_str());
      std::exit(2);
    }
    out.push_back(name);
  }
  return out;
}

}  // namespace hpo
