#include "hpo/text/ascii.h"

#include <doctest/doctest.h>

TEST_CASE("ascii_lower lowers ASCII letters only; UTF-8 passes through whole") {
  CHECK(hpo::ascii_lower("MiNiMiZe") == "minimize");
  CHECK(hpo::ascii_lower("GPU-1A2B") == "gpu-1a2b");
  CHECK(hpo::ascii_lower("\xC3\x89TAT") == "\xC3\x89tat");  // É stays É
  CHECK(hpo::ascii_lower("") == "");
}

TEST_CASE("trim_blanks takes ASCII blanks off both ends, never from inside") {
  CHECK(hpo::trim_blanks("  a b\t\r\n") == "a b");
  CHECK(hpo::trim_blanks("\v\fx\f") == "x");
  CHECK(hpo::trim_blanks(" \t\r\n ") == "");
  CHECK(hpo::trim_blanks("") == "");
  CHECK(hpo::trim_blanks("\xC2\xA0x\xC2\xA0") == "\xC2\xA0x\xC2\xA0");  // NBSP is not ASCII
  CHECK(hpo::trim_blanks("a\n\nb") == "a\n\nb");
}
