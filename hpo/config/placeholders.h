// `{name}` placeholders in a trainer command: `--out={trial_dir}` becomes
// `--out=runs/quick_sweep/trial_3`. Values are substituted as plain text into
// argv elements; no shell ever sees them, so no quoting is needed or done.
// `{{` and `}}` stand for literal braces.
#ifndef HPO_CONFIG_PLACEHOLDERS_H_
#define HPO_CONFIG_PLACEHOLDERS_H_

#include <map>
#include <string>
#include <vector>

namespace hpo {

// The placeholders a trainer command may use: config, trial_dir,
// trial_number, study_name, study_dir.
const std::vector<std::string>& known_placeholders();

// Checks a command when its study file is loaded, so that a typo fails
// before any trial runs. Throws ConfigError (without file context; the caller
// adds it) for an unknown placeholder, a '{' without '}' or a lone '}'.
void validate_placeholders(const std::string& token);

// Replaces every placeholder in `token` by its value in `vars`. Throws
// ConfigError for a placeholder not in `vars` and for unbalanced braces.
std::string expand_placeholders(const std::string& token,
                                const std::map<std::string, std::string>& vars);

// expand_placeholders() applied to each argument.
std::vector<std::string> expand_command(const std::vector<std::string>& argv,
                                        const std::map<std::string, std::string>& vars);

}  // namespace hpo

#endif  // HPO_CONFIG_PLACEHOLDERS_H_
