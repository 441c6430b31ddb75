// Where the programs hpo runs are: the running executable's directory, and
// a program name resolved the way trainers are found.
#ifndef HPO_LAUNCH_PROGRAM_PATH_H_
#define HPO_LAUNCH_PROGRAM_PATH_H_

#include <string>

namespace hpo {

// Resolves a program name the way hpo runs trainers: a name with a '/' is a
// path (relative to the working directory); a bare name is looked up first
// beside the running hpo executable (so a build tree's hpo-trainer is found),
// then in PATH. Returns an empty string when it is not found or not executable.
std::string resolve_program(const std::string& name);

// The directory holding the running executable (from /proc/self/exe).
std::string executable_dir();

}  // namespace hpo

#endif  // HPO_LAUNCH_PROGRAM_PATH_H_
