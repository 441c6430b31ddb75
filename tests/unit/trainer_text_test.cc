#include "hpo/launch/trainer_text.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace hpo {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST_CASE("valid UTF-8 passes through unchanged") {
  for (const std::string s : {"", "plain ascii\n", "\xE2\x96\x88 bar", "\xF0\x9F\x98\x80 \xC3\xA9"})
    CHECK(valid_utf8(s) == s);
}

TEST_CASE("each invalid sequence becomes one U+FFFD, as Python's errors='replace'") {
  CHECK(valid_utf8("bad byte \xFF\n") == "bad byte " + kFffd + "\n");
  CHECK(valid_utf8("\xE2\x96 at") == kFffd + " at");  // a character cut short
  CHECK(valid_utf8("end \xE2\x96") == "end " + kFffd);
  CHECK(valid_utf8("\x80\x80") == kFffd + kFffd);  // lone continuation bytes
  CHECK(valid_utf8("\xC0\xAF") == kFffd + kFffd);  // an overlong '/'
  CHECK(valid_utf8("\xED\xA0\x80") == kFffd + kFffd + kFffd);  // a surrogate
  CHECK(valid_utf8("\xF4\x90\x80\x80") == kFffd + kFffd + kFffd + kFffd);  // past U+10FFFF
}

TEST_CASE("a file's tail starts at a whole character and is valid UTF-8") {
  const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                           "/hpo_test_tail_" + std::to_string(::getpid());
  std::string bar = "\r";
  for (int i = 0; i < 3000; ++i) bar += "\xE2\x96\x88";
  std::ofstream(path, std::ios::binary) << bar;
  const std::string tail = file_tail(path, 4096);
  CHECK(tail.size() <= 4096);
  CHECK(tail.size() % 3 == 0);
  CHECK(tail.substr(0, 3) == "\xE2\x96\x88");
  CHECK(valid_utf8(tail) == tail);

  std::ofstream(path, std::ios::binary) << "first\nbad \xFF\n";
  CHECK(file_tail(path, 9) == "bad " + kFffd + "\n");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace hpo
