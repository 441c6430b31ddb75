// UTF-8 as RFC 3629 defines it: the one check of what a well-formed
// character is, for text hpo reads (study files) and keeps (a trainer's
// output, hpo/launch/trainer_text.h).
#ifndef HPO_TEXT_UTF8_H_
#define HPO_TEXT_UTF8_H_

#include <cstddef>
#include <string_view>

namespace hpo {

// How many bytes at `at` form one well-formed character (no overlong forms,
// surrogates or code points past U+10FFFF); 0 when they do not, with `skip`
// set to the bytes of the invalid sequence (its longest start that could
// have been valid, at least 1, as Python's errors="replace" counts them).
size_t utf8_char_at(std::string_view s, size_t at, size_t& skip);

// The code point of the well-formed character of `length` bytes at `at`, as
// utf8_char_at measured it.
char32_t utf8_code_point(std::string_view s, size_t at, size_t length);

}  // namespace hpo

#endif  // HPO_TEXT_UTF8_H_
