// Where each key of a study file's `sampler:` or `pruner:` mapping was
// written. Their options are checked later, by the factories that build the
// sampler or pruner from plain JSON; this keeps the lines for those errors.
#ifndef HPO_CONFIG_OPTION_LINES_H_
#define HPO_CONFIG_OPTION_LINES_H_

#include <map>
#include <string>

namespace hpo {

struct OptionLines {
  std::map<std::string, int> lines;  // key -> 1-based line; "name" for the mapping's name

  // "FILE:LINE" where `key` was written, else where the mapping's name was,
  // else FILE alone (options that came from a flag, not the file).
  std::string where(const std::string& file, const std::string& key) const;
};

}  // namespace hpo

#endif  // HPO_CONFIG_OPTION_LINES_H_
