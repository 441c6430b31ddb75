// Files only their owner may read, for text that holds a secret (the
// storage URL's password): created mode 0600 in the same system call that
// creates them, so no other user can open them in between, as they could a
// file created 0644 and chmod-ed afterwards.
#ifndef HPO_SLURM_PRIVATE_FILE_H_
#define HPO_SLURM_PRIVATE_FILE_H_

#include <string>

namespace hpo {

// Creates `path` (mode 0600 whatever the umask) and writes `text` to it.
// Returns 0, or the errno of what failed. A path that exists already, even
// as a dangling symbolic link, is EEXIST and is left as it is: whoever made
// it could read what is written into it.
int write_private_file(const std::string& path, const std::string& text);

}  // namespace hpo

#endif  // HPO_SLURM_PRIVATE_FILE_H_
