// The names a bench's HPO_BENCH_SAMPLERS or HPO_BENCH_PROBLEMS selects. Both
// quality benches' C++ sides share it, so that a typo stops either of them
// before its first study instead of leaving a row or a table empty.
#ifndef HPO_TOOLS_BENCH_LISTED_H_
#define HPO_TOOLS_BENCH_LISTED_H_

#include <string>
#include <vector>

namespace hpo {

// The comma-separated names in environment variable `variable`; `all` when it
// is unset or empty. A name in neither `all` nor `named_only` (run only when
// listed) ends the process with status 2, naming the known ones.
std::vector<std::string> listed(const char* variable, const std::vector<std::string>& all,
                                const std::vector<std::string>& named_only = {});

}  // namespace hpo

#endif  // HPO_TOOLS_BENCH_LISTED_H_
