// NSGA-II's options and how a study file sets them
// (`sampler: {name: nsga2, population_size: 40}`). The study-file reader
// (hpo/run/mo_sampler_factory.cc) and docs/sampler-options.md both go
// through nsga2_option_table().
#ifndef HPO_SAMPLERS_NSGA2_OPTIONS_H_
#define HPO_SAMPLERS_NSGA2_OPTIONS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "samplers/tpe_option_table.h"

namespace hpo {

// Optuna's NSGAIISampler defaults.
struct Nsga2Options {
  int population_size = 50;
  double crossover_prob = 0.9;  // a child crosses its parents; else it copies one
  double swapping_prob = 0.5;  // uniform crossover: each parameter from the second parent
  // Each parameter is drawn anew at random; negative: 1 / (number of parameters).
  double mutation_prob = -1;
};

struct Nsga2OptionRow {
  const char* key;
  std::variant<int Nsga2Options::*, double Nsga2Options::*> member;
  const char* expected;  // what a valid value is, for errors and the docs
  const char* description;  // one line, for the docs
};

const std::vector<Nsga2OptionRow>& nsga2_option_table();
std::vector<std::string> nsga2_option_keys();

// The value of `row` in `options`, as a study file writes it ("auto" for
// the mutation probability left to the number of parameters).
std::string nsga2_option_text(const Nsga2OptionRow& row, const Nsga2Options& options);

// Sets `out` from `values`; the first bad key is returned, with `expected`
// empty when the key is no option.
std::optional<TpeOptionError> read_nsga2_options(
    const std::map<std::string, TpeOptionValue>& values, Nsga2Options& out);

}  // namespace hpo

#endif  // HPO_SAMPLERS_NSGA2_OPTIONS_H_
