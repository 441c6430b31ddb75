// The GP sampler's options and how a study file sets them
// (`sampler: {name: gp, n_startup_trials: 5, deterministic: true}`). The
// study-file reader (hpo/run/sampler_factory.cc) and
// docs/sampler-options.md both go through gp_option_table().
#ifndef HPO_SAMPLERS_GP_OPTIONS_H_
#define HPO_SAMPLERS_GP_OPTIONS_H_

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "samplers/startup.h"
#include "samplers/tpe_option_table.h"

namespace hpo {

struct GpOptions {
  // Startup trials before the GP models the history; a study file that sets
  // none gets auto_startup_trials (startup.h) of its planned trials.
  int n_startup_trials = 10;
  StartupKind startup = StartupKind::kSobol;  // how the startup trials are drawn
  // The objective has no noise: fix the noise variance at 1e-6 instead of
  // estimating it, so the GP interpolates the observations.
  bool deterministic = false;
};

struct GpOptionRow {
  const char* key;
  std::variant<int GpOptions::*, bool GpOptions::*, StartupKind GpOptions::*> member;
  const char* expected;  // what a valid value is, for errors and the docs
  const char* description;  // one line, for the docs
};

const std::vector<GpOptionRow>& gp_option_table();
std::vector<std::string> gp_option_keys();

// The value of `row` in `options`, as a study file writes it.
std::string gp_option_text(const GpOptionRow& row, const GpOptions& options);

// Sets `out` from `values` (the TPE reader's value type); the first bad key
// is returned, with `expected` empty when the key is no option.
std::optional<TpeOptionError> read_gp_options(const std::map<std::string, TpeOptionValue>& values,
                                              GpOptions& out);

}  // namespace hpo

#endif  // HPO_SAMPLERS_GP_OPTIONS_H_
