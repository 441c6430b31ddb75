// Whole-or-absent file writes: a trainer (or a person) never reads a
// half-written config or export.
#ifndef HPO_RUN_ATOMIC_FILE_H_
#define HPO_RUN_ATOMIC_FILE_H_

#include <string>

namespace hpo {

// Writes `text` to PATH.tmp, then renames it over PATH, creating parent
// directories as needed. Throws std::runtime_error naming the path on failure.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace hpo

#endif  // HPO_RUN_ATOMIC_FILE_H_
