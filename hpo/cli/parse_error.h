// Flag errors in words a user can act on. CLI11 answers a misspelt command
// with "A subcommand is required" and a misspelt option with "The following
// arguments were not expected: 1 --n-trial" (its extras in reverse order);
// neither names what was wrong or what was meant.
#ifndef HPO_CLI_PARSE_ERROR_H_
#define HPO_CLI_PARSE_ERROR_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace hpo {

// The message for `error`, raised parsing `args` (argv without the program)
// with `app`: "unknown command 'runn' (did you mean 'run'?); commands: ...",
// "hpo run: unknown option '--n-trial' (did you mean '--n-trials'?)", or
// CLI11's own message where it already names the problem. No trailing newline.
// `command_path` gets the command the arguments chose, "hpo run", for the
// hint to its --help.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error,
                                const std::vector<std::string>& args, std::string* command_path);

}  // namespace hpo

#endif  // HPO_CLI_PARSE_ERROR_H_
