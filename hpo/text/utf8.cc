#include "hpo/text/utf8.h"

namespace hpo {

namespace {

// How many bytes the sequence led by `lead` has, and the range its second
// byte must fall in (which rules out overlong forms, surrogates and code
// points past U+10FFFF); 0 for a byte that cannot lead one.
struct Lead {
  size_t length;
  unsigned char low, high;
};

Lead lead_of(unsigned char c) {
  if (c < 0x80) return {1, 0, 0};
  if (c >= 0xC2 && c <= 0xDF) return {2, 0x80, 0xBF};
  if (c == 0xE0) return {3, 0xA0, 0xBF};
  if (c == 0xED) return {3, 0x80, 0x9F};
  if (c >= 0xE1 && c <= 0xEF) return {3, 0x80, 0xBF};
  if (c == 0xF0) return {4, 0x90, 0xBF};
  if (c >= 0xF1 && c <= 0xF3) return {4, 0x80, 0xBF};
  if (c == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

}  // namespace

size_t utf8_char_at(std::string_view s, size_t at, size_t& skip) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const Lead lead = lead_of(byte(at));
  skip = 1;
  if (lead.length == 1) return 1;
  if (lead.length == 0) return 0;
  for (size_t i = 1; i < lead.length; ++i) {
    if (at + i >= s.size()) return 0;
    const unsigned char c = byte(at + i);
    const bool ok = i == 1 ? c >= lead.low && c <= lead.high : (c & 0xC0) == 0x80;
    if (!ok) return 0;
    skip = i + 1;
  }
  return lead.length;
}

char32_t utf8_code_point(std::string_view s, size_t at, size_t length) {
  static const unsigned char kLeadBits[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t cp = static_cast<unsigned char>(s[at]) & kLeadBits[length];
  for (size_t i = 1; i < length; ++i) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[at + i]) & 0x3F);
  }
  return cp;
}

}  // namespace hpo
