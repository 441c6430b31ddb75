#include "hpo/slurm/shell_quote.h"

#include <doctest/doctest.h>

#include <string>

#include "hpo/gpu/command_output.h"

namespace hpo {
namespace {

// What /bin/sh makes of `word` as printf's one argument.
std::string through_sh(const std::string& word) {
  const CommandOutput out = run_command({"/bin/sh", "-c", "printf '%s' " + word}, 10);
  CHECK(out.ok());
  return out.out;
}

TEST_CASE("a quoted word reaches the program whole and unchanged, whatever it holds") {
  const char* nasty[] = {
      "plain", "with space",  "it's",      "'",
      "''",    "\"",          "$HOME",     "$(touch /tmp/hpo_pwned)",
      "`id`",  "a;b&&c|d",    "*",         "~",
      "~root", "back\\slash", "new\nline", "tab\there",
      "-n",    "%A_%a",       "é ünï",     "{a,b}",
      "!",     "#comment",    "a=b c",     "end\\",
  };
  for (const std::string s : nasty) {
    CAPTURE(s);
    CHECK(through_sh(shell_quote(s)) == s);
  }
}

TEST_CASE("an empty word stays a word, and plain ones stay readable") {
  CHECK(shell_quote("") == "''");
  CHECK(through_sh("x" + shell_quote("") + "y") == "xy");
  CHECK(shell_quote("sqlite:///studies.db") == "sqlite:///studies.db");
  CHECK(shell_quote("/home/a/proj-1") == "/home/a/proj-1");
  CHECK(shell_quote("it's") == "'it'\\''s'");
}

}  // namespace
}  // namespace hpo
