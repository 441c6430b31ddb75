#include "hpo/cli/parse_error.h"

#include <algorithm>
#include <optional>

#include "hpo/config/did_you_mean.h"

namespace hpo {

namespace {

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// Every spelling of the options of `app`: "--n-trials", "-n".
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// The innermost command the arguments chose ("hpo", "hpo gpu", "hpo gpu calibrate").
const CLI::App* chosen_command(const CLI::App& app, std::string& path) {
  for (const CLI::App* sub : app.get_subcommands()) {
    path += " " + sub->get_name();
    return chosen_command(*sub, path);
  }
  return &app;
}

// The first argument that looks like an option and is none of `known`.
std::string unknown_option(const std::vector<std::string>& args,
                           const std::vector<std::string>& known) {
  for (const auto& arg : args) {
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) continue;
    const std::string name = arg.substr(0, arg.find('='));
    if (std::find(known.begin(), known.end(), name) == known.end()) return name;
  }
  return "";
}

// CLI11's "--n-trials: At Most 1 required but received 2" (an option given
// twice) and "--n-trials: 1 required INT:NUMBER >= 0 missing" (one given no
// value) in plain words; nullopt for its other mismatches.
std::optional<std::string> mismatch_message(const std::string& what) {
  const size_t colon = what.find(": ");
  if (colon == std::string::npos || what.compare(0, 1, "-") != 0) return std::nullopt;
  const std::string name = what.substr(0, colon);
  const std::string rest = what.substr(colon + 2);
  if (rest.rfind("At Most ", 0) == 0) {
    const size_t received = rest.rfind(' ');
    return name + ": given " + rest.substr(received + 1) + " times; give it once";
  }
  if (rest.size() > 8 && rest.compare(rest.size() - 8, 8, " missing") == 0)
    return name + ": needs a value";
  return std::nullopt;
}

}  // namespace

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error,
                                const std::vector<std::string>& args, std::string* command_path) {
  std::string path = app.get_name();
  const CLI::App* command = chosen_command(app, path);
  if (command_path) *command_path = path;
  if (command == &app && dynamic_cast<const CLI::RequiredError*>(&error)) {
    const auto names = command_names(app);
    const bool typo = !args.empty() && args.front()[0] != '-';
    const std::string option = unknown_option(args, option_names(app));
    if (!typo && !option.empty()) return path + ": unknown option '" + option + "'";
    return (typo ? "unknown command '" + args.front() + "'" + did_you_mean(args.front(), names)
                 : std::string("a command is required")) +
           "; commands: " + join_names(names);
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
    std::vector<std::string> known = option_names(*command);
    for (const CLI::App* c = command->get_parent(); c; c = c->get_parent()) {
      for (const auto& n : option_names(*c)) known.push_back(n);
    }
    const std::string option = unknown_option(args, known);
    if (!option.empty()) {
      // A one-letter option is one edit from every other: no suggestion.
      return path + ": unknown option '" + option + "'" +
             (option.size() > 2 ? did_you_mean(option, option_names(*command)) : "");
    }
    if (!command->get_subcommands({}).empty() && !command->remaining().empty()) {
      const auto names = command_names(*command);
      return path + ": unknown command '" + command->remaining().front() + "'" +
             did_you_mean(command->remaining().front(), names) + "; commands: " + join_names(names);
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error)) {
    if (const auto said = mismatch_message(error.what())) return *said;
  }
  return error.what();
}

}  // namespace hpo
