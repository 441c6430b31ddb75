// Whether two paths name one file, however they are written.
#ifndef HPO_RUN_SAME_FILE_H_
#define HPO_RUN_SAME_FILE_H_

#include <string>

namespace hpo {

// Two files that exist are the same when they are one file on disk (a
// relative path, a symlink, a hard link); paths to files not there yet are
// compared after resolving what of them exists. False when either cannot be
// resolved: a caller refusing to overwrite an input, or noting a moved study
// file, then errs on "different".
bool same_file(const std::string& a, const std::string& b);

}  // namespace hpo

#endif  // HPO_RUN_SAME_FILE_H_
