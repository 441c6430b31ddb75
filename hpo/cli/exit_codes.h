// hpo's exit codes, as documented in the README.
#ifndef HPO_CLI_EXIT_CODES_H_
#define HPO_CLI_EXIT_CODES_H_

namespace hpo {

enum ExitCode : int {
  kExitOk = 0,
  kExitAllTrialsFailed = 1,  // `hpo run`: every trial of this run failed
  // Bad flags, study file or search space; nothing was stored. Also `hpo run`
  // stopped because the trainer refused the env every trial gets (bad_env):
  // then only its first failed trials were.
  kExitBadInput = 2,
  kExitStorage = 3,  // the study database could not be read or written
  kExitInternal = 4,  // anything else unexpected
  kExitTooManyFailures = 5,  // `hpo run` stopped by --max-failures
  kExitNoCuda = 6,  // `hpo run` stopped: the trainer cannot use the GPU of its slot
  kExitRunsDir = 7,  // `hpo run`: a trial's directory could not be written (a full disk, say)
  kExitOutputLost =
      8,  // `hpo run` stopped: its standard output could not be written (not a broken pipe: 141)
  kExitInterrupted = 130,  // stopped by SIGINT (Ctrl-C); 143 for SIGTERM
};

}  // namespace hpo

#endif  // HPO_CLI_EXIT_CODES_H_
