#include "hpo/run/stderr_summary.h"

#include <doctest/doctest.h>

#include <string>

namespace hpo {
namespace {

TEST_CASE("the last meaningful stderr line: the exception, not blanks or a progress bar") {
  const std::string traceback =
      "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
      "    raise ValueError(\"bad input\")\nValueError: bad input\n\n";
  CHECK(last_meaningful_line(traceback) == "ValueError: bad input");
  // A bar redrawn with '\r' after the error, then blank lines.
  CHECK(last_meaningful_line(
            "RuntimeError: boom\n\r\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88 42%\r  \n") ==
        "RuntimeError: boom");
  CHECK(last_meaningful_line("").empty());
  CHECK(last_meaningful_line("\n\r 12 %\n").empty());
  CHECK(last_meaningful_line("only line") == "only line");
  // Cut before a whole character: never half of a multi-byte one.
  const std::string long_line = "E" + std::string(199, 'x') + "\xc3\xa9" + "rest";
  const std::string cut = last_meaningful_line(long_line);
  CHECK(cut == "E" + std::string(199, 'x') + "...");
}

TEST_CASE("a failure's reason carries the trainer's last words once, and only a failure's") {
  const std::string tail = "Traceback (most recent call last):\nValueError: bad lr\n";
  CHECK(with_last_line("trainer failed: exit code 1", tail) ==
        "trainer failed: exit code 1: ValueError: bad lr");
  // Already said (an OOM reason quotes its line): not twice.
  CHECK(with_last_line("oom: ValueError: bad lr (exit code 1)", tail) ==
        "oom: ValueError: bad lr (exit code 1)");
  CHECK(with_last_line("trainer failed: exit code 1", "\n 42%\r") == "trainer failed: exit code 1");
  CHECK(with_last_line("", tail).empty());
}

}  // namespace
}  // namespace hpo
