#include "hpo/launch/trainer_text.h"

#include <fstream>

#include "hpo/text/utf8.h"

namespace hpo {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

std::string valid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t at = 0;
  while (at < bytes.size()) {
    size_t skip = 1;
    const size_t n = utf8_char_at(bytes, at, skip);
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
