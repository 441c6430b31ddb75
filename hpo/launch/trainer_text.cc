#include "hpo/launch/trainer_text.h"

#include <fstream>

namespace hpo {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

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

// How many bytes at `at` form a valid character; when none do, returns 0
// and sets `skip` to the bytes of the invalid sequence (at least 1).
size_t valid_at(std::string_view s, size_t at, size_t& skip) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const Lead lead = lead_of(byte(at));
  skip = 1;
  if (lead.length == 1) return 1;
  if (lead.length == 0) return 0;
  for (size_t i = 1; i < lead.length; ++i) {
    if (at + i >= s.size()) return 0;
    const unsigned char c = byte(at + i);
    const bool ok = i == 1 ? c >= lead.low && c <= lead.high : continuation(c);
    if (!ok) return 0;
    skip = i + 1;
  }
  return lead.length;
}

}  // namespace

std::string valid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t at = 0;
  while (at < bytes.size()) {
    size_t skip = 1;
    const size_t n = valid_at(bytes, at, skip);
    if (n > 0) {
      out.append(bytes.substr(at, n));
      at += n;
    } else {
      out.append(kReplacement);
      at += skip;
    }
  }
  return out;
}

std::string file_tail(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<size_t>(in.tellg());
  const size_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string text(size - start, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (start > 0) {
    // Cut where the file was not: at a line start, else a character's.
    const auto newline = text.find('\n');
    size_t from = 0;
    if (newline != std::string::npos && newline + 1 < text.size()) {
      from = newline + 1;
    } else {
      while (from < text.size() && from < 3 && continuation(static_cast<unsigned char>(text[from])))
        ++from;
    }
    text.erase(0, from);
  }
  return valid_utf8(text);
}

}  // namespace hpo
