// The line of a failed trainer's stderr that says what went wrong, for the
// places people look first (hpo status's note): the last line that carries
// words, skipping blank lines and progress bars, which a trainer that died
// mid-epoch often ends with.
#ifndef HPO_RUN_STDERR_SUMMARY_H_
#define HPO_RUN_STDERR_SUMMARY_H_

#include <string>

namespace hpo {

// "ValueError: bad input" from a Python traceback's tail; "" when no line
// has a letter. Lines end at '\n' or '\r' (a progress bar redraws with '\r');
// the result is trimmed and cut to 200 characters.
std::string last_meaningful_line(const std::string& stderr_tail);

// A failure's reason with that line after it ("trainer failed: exit code 1:
// ValueError: bad input"), where the reason does not hold it already; an
// empty reason stays empty (the trial did not fail).
std::string with_last_line(const std::string& reason, const std::string& stderr_tail);

}  // namespace hpo

#endif  // HPO_RUN_STDERR_SUMMARY_H_
