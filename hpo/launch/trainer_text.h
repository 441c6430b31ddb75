// The one boundary where a trainer's bytes become text that hpo keeps: its
// report lines and the tails of its stdout and stderr pass through here
// before anything is parsed, shown or stored. A trainer may write any bytes
// (a byte of another encoding, a progress bar cut mid-character), but JSON
// and both databases take only UTF-8: what leaves here is valid UTF-8.
#ifndef HPO_LAUNCH_TRAINER_TEXT_H_
#define HPO_LAUNCH_TRAINER_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace hpo {

// `bytes` as valid UTF-8: each invalid sequence (its longest start that
// could have been valid, as Python's errors="replace" does) becomes U+FFFD.
std::string valid_utf8(std::string_view bytes);

// The last `max_bytes` of a file as valid UTF-8, starting at a line boundary
// when one is inside, else at the first whole character; "" if unreadable.
std::string file_tail(const std::string& path, size_t max_bytes);

}  // namespace hpo

#endif  // HPO_LAUNCH_TRAINER_TEXT_H_
