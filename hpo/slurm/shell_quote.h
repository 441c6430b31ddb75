// Quoting for the text hpo writes into shell scripts: a user's study name,
// path or URL must reach the program as one argument, whatever it holds.
#ifndef HPO_SLURM_SHELL_QUOTE_H_
#define HPO_SLURM_SHELL_QUOTE_H_

#include <string>

namespace hpo {

// `s` as one POSIX shell word: left bare when it holds only characters no
// shell treats specially, else in single quotes, each ' written as '\''.
std::string shell_quote(const std::string& s);

}  // namespace hpo

#endif  // HPO_SLURM_SHELL_QUOTE_H_
