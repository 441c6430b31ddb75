#include "hpo/text/utf8.h"

#include <doctest/doctest.h>

#include <string>

namespace {

// UTF-8 written out from the standard's table, apart from the decoder.
std::string encode_utf8(char32_t cp) {
  std::string out;
  const auto put = [&](unsigned v) { out += static_cast<char>(v); };
  if (cp < 0x80) {
    put(cp);
  } else if (cp < 0x800) {
    put(0xC0 | (cp >> 6));
    put(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    put(0xE0 | (cp >> 12));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  } else {
    put(0xF0 | (cp >> 18));
    put(0x80 | ((cp >> 12) & 0x3F));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  }
  return out;
}

}  // namespace

TEST_CASE("every scalar value reads back as itself, with its length") {
  size_t wrong = 0;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string text = "a" + encode_utf8(cp) + "b";
    size_t skip = 0;
    const size_t length = hpo::utf8_char_at(text, 1, skip);
    if (length != text.size() - 2 || hpo::utf8_code_point(text, 1, length) != cp) ++wrong;
  }
  CHECK(wrong == 0);
}

TEST_CASE("surrogates, overlong forms, values past U+10FFFF and cut sequences are not characters") {
  for (char32_t cp = 0xD800; cp <= 0xDFFF; cp += 0x7F) {
    size_t skip = 0;
    CHECK(hpo::utf8_char_at(encode_utf8(cp), 0, skip) == 0);
  }
  for (const std::string bad :
       {"\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x80\x80\x80",
        "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xE2\x82", "\xF0\x9F\x98", "\x80", "\xFF"}) {
    size_t skip = 0;
    CHECK_MESSAGE(hpo::utf8_char_at(bad, 0, skip) == 0, bad);
    CHECK(skip >= 1);
    CHECK(skip <= bad.size());
  }
}
