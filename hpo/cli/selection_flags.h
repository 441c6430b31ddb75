// The flags that choose and judge a sweep's selected trial (issue #15):
// --select best|robust and --cscv-blocks S (even, 2 to 20), shared by best, status and export.
#ifndef HPO_CLI_SELECTION_FLAGS_H_
#define HPO_CLI_SELECTION_FLAGS_H_

#include <CLI/CLI.hpp>
#include <string>

#include "hpo/report/selection.h"

namespace hpo {

struct SelectionFlags {
  std::string select = "best";
  int cscv_blocks = 16;
  SelectionOptions options() const;
};

// --cscv-blocks always; --select where the command picks a trial.
void add_selection_options(CLI::App* cmd, SelectionFlags& flags, bool with_select);

// What --select robust means, for the commands' footers.
extern const char* const kSelectHelp;

}  // namespace hpo

#endif  // HPO_CLI_SELECTION_FLAGS_H_
