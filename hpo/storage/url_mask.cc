#include "hpo/storage/url_mask.h"

#include <algorithm>
#include <cctype>

#include "hpo/text/ascii.h"

namespace hpo {

namespace {

constexpr const char kMask[] = "***";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_separator(char c) { return c == '&' || c == '?' || c == ' ' || c == '\t' || c == '\n'; }

// Where the authority starts: after "scheme:" and its slashes when the URL has
// a scheme followed by '/', else at 0 (so "user:pw@host/db", scheme left out,
// is masked too).
size_t authority_start(const std::string& url) {
  const size_t colon = url.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= url.size() || url[colon + 1] != '/')
    return 0;
  const bool scheme = std::all_of(url.begin(), url.begin() + static_cast<long>(colon), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
  if (!scheme) return 0;
  return url.find_first_not_of('/', colon + 1);
}

// The end of a parameter's value starting at `from`: the next separator, or
// past the closing quote of a quoted conninfo value ('secret word').
size_t value_end(const std::string& s, size_t from) {
  if (from < s.size() && s[from] == '\'') {
    const size_t close = s.find('\'', from + 1);
    return close == std::string::npos ? s.size() : close + 1;
  }
  size_t end = from;
  while (end < s.size() && !is_separator(s[end])) ++end;
  return end;
}

}  // namespace

std::string percent_decoded(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string masked_password_params(const std::string& params) {
  std::string out;
  size_t i = 0;
  while (i < params.size()) {
    if (is_separator(params[i])) {
      out += params[i++];
      continue;
    }
    const size_t eq = params.find('=', i);
    const size_t word_end = value_end(params, i);
    if (eq == std::string::npos || eq > word_end) {
      out += params.substr(i, word_end - i);
      i = word_end;
      continue;
    }
    const std::string key = ascii_lower(percent_decoded(params.substr(i, eq - i)));
    const size_t end = value_end(params, eq + 1);
    out += params.substr(i, eq + 1 - i);
    out += key == "password" ? kMask : params.substr(eq + 1, end - eq - 1);
    i = end;
  }
  return out;
}

std::string masked_url(const std::string& url) {
  std::string out = url;
  const size_t start = authority_start(url);
  const size_t at = url.rfind('@');
  const size_t colon = url.find(':', start);
  if (at != std::string::npos && at >= start && colon < at)
    out = url.substr(0, colon + 1) + kMask + url.substr(at);
  return masked_password_params(out);
}

}  // namespace hpo
