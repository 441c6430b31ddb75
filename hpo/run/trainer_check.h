// What `hpo doctor` checks of any trainer, the stock one or a user's: that
// its program, the interpreter a script asks for and the script an
// interpreter is given exist, and, when the study file gives a `smoke:`
// config, that one run of it on that config reports as the protocol says.
#ifndef HPO_RUN_TRAINER_CHECK_H_
#define HPO_RUN_TRAINER_CHECK_H_

#include <string>
#include <vector>

#include "hpo/config/study_config.h"

namespace hpo {

// Whether `program` (a resolved path) is hpo's own trainer, whose model the
// doctor's memory and time estimates describe.
bool is_stock_trainer(const std::string& program);

struct FileCheck {
  bool ok = true;
  std::string text;  // what was found, or what is wrong
};

// `program` is the trainer's resolved path. Checks the interpreter of a
// script's "#!" line (through /usr/bin/env too), and for a command that
// starts with an interpreter (python3, bash, Rscript, ...) the script it is
// given, with {study_dir} expanded.
std::vector<FileCheck> check_trainer_files(const StudyConfig& study, const std::string& program);

struct SmokeResult {
  bool ran = false;  // started at all
  bool ok = false;  // exited 0 and reported a final line with the objective
  std::string exit;  // "exit code 0", "killed by signal 9 (SIGKILL)", "timed out after 60 s"
  int epoch_lines = 0;
  int bad_lines = 0;  // report lines that did not parse
  std::vector<std::string> problems;  // one per bad line (the first few), and what is missing
  std::string final_value;  // the objective in the final line, as text
  std::string dir;  // the scratch directory, kept when the run failed
  std::string stderr_tail;
};

// Runs the trainer once, as hpo runs a trial (the protocol's argv and
// environment, on the CPU), in a scratch directory under $TMPDIR, on a point
// drawn from the space with the study's fixed values and then `smoke`'s on
// top. Stops it after `timeout_s`. The directory is removed when all went
// well.
SmokeResult smoke_run(const StudyConfig& study, const std::string& program, double timeout_s);

}  // namespace hpo

#endif  // HPO_RUN_TRAINER_CHECK_H_
