#include "hpo/config/placeholders.h"

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"

namespace hpo {

namespace {

// Walks `token`, copying text and handing each placeholder name to
// `lookup`, which returns its value or throws.
template <typename Lookup>
std::string substitute(const std::string& token, const Lookup& lookup) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    const char c = token[i];
    const bool doubled = i + 1 < token.size() && token[i + 1] == c;
    if ((c == '{' || c == '}') && doubled) {
      out += c;
      ++i;
    } else if (c == '}') {
      throw ConfigError("'}' without '{' in '" + token + "' (write '}}' for a literal brace)");
    } else if (c == '{') {
      const size_t close = token.find_first_of("{}", i + 1);
      if (close == std::string::npos || token[close] == '{') {
        throw ConfigError("'{' without '}' in '" + token + "' (write '{{' for a literal brace)");
      }
      out += lookup(token.substr(i + 1, close - i - 1));
      i = close;
    } else {
      out += c;
    }
  }
  return out;
}

[[noreturn]] void unknown_placeholder(const std::string& name,
                                      const std::vector<std::string>& known) {
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "{" : ", {") + k + "}";
  throw ConfigError("unknown placeholder '{" + name + "}'" + did_you_mean(name, known) +
                    "; known: " + list);
}

}  // namespace

const std::vector<std::string>& known_placeholders() {
  static const std::vector<std::string> names = {"config", "trial_dir", "trial_number",
                                                 "study_name", "study_dir"};
  return names;
}

void validate_placeholders(const std::string& token) {
  const auto& known = known_placeholders();
  substitute(token, [&](const std::string& name) {
    for (const std::string& k : known) {
      if (k == name) return std::string();
    }
    unknown_placeholder(name, known);
  });
}

std::string expand_placeholders(const std::string& token,
                                const std::map<std::string, std::string>& vars) {
  return substitute(token, [&](const std::string& name) {
    const auto it = vars.find(name);
    if (it != vars.end()) return it->second;
    std::vector<std::string> known;
    for (const auto& [k, v] : vars) known.push_back(k);
    unknown_placeholder(name, known);
  });
}

std::vector<std::string> expand_command(const std::vector<std::string>& argv,
                                        const std::map<std::string, std::string>& vars) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (const std::string& arg : argv) out.push_back(expand_placeholders(arg, vars));
  return out;
}

}  // namespace hpo
