// Where hpo looks for a kind of data file (studies, GPU profiles): the
// directories of an environment variable, then ./SUBDIR, then the source
// checkout hpo was built from, then the installed share directory.
#ifndef HPO_CONFIG_SEARCH_DIRS_H_
#define HPO_CONFIG_SEARCH_DIRS_H_

#include <string>
#include <vector>

namespace hpo {

// `env_var` holds ':'-separated directories (empty entries skipped);
// `source_dir` is the checkout's root, `exe_dir` the running binary's.
std::vector<std::string> search_dirs(const char* env_var, const std::string& subdir,
                                     const std::string& source_dir, const std::string& exe_dir);

}  // namespace hpo

#endif  // HPO_CONFIG_SEARCH_DIRS_H_
