// Whole-or-absent file writes: a trainer (or a person) never reads a
// half-written config or export.
#ifndef HPO_RUN_ATOMIC_FILE_H_
#define HPO_RUN_ATOMIC_FILE_H_

#include <string>
#include <utility>
#include <vector>

namespace hpo {

// Writes `text` to PATH.tmp, then renames it over PATH, creating parent
// directories as needed. Throws std::runtime_error naming the path on failure.
void write_file_atomically(const std::string& path, const std::string& text);

// Several files (path, text), all or none: each is written to PATH.tmp, and
// only once all are written are they renamed into place. A failure before
// that (a full disk, a directory in a file's place) removes the temporary
// files and leaves every PATH as it was.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace hpo

#endif  // HPO_RUN_ATOMIC_FILE_H_
