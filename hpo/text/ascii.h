// ASCII-only text helpers: case and blanks in what tools and users type
// (directions, GPU ids, URL keys) and print (nvidia-smi, cgroup files, error
// messages). Bytes past ASCII pass through untouched, so UTF-8 stays whole.
#ifndef HPO_TEXT_ASCII_H_
#define HPO_TEXT_ASCII_H_

#include <string>
#include <string_view>

namespace hpo {

// `s` with ASCII letters in lower case.
std::string ascii_lower(std::string s);

// `s` without the ASCII spaces, tabs, carriage returns, newlines, vertical
// tabs and form feeds at either end.
std::string trim_blanks(std::string_view s);

}  // namespace hpo

#endif  // HPO_TEXT_ASCII_H_
