// Prints docs/sampler-options.md from the option tables (TPE's, GP's and NSGA-II's), so that the
// docs list exactly the options a study file accepts. The test docs_sampler_options fails when the
// committed file differs; regenerate it with
//   build/bin/sampler_options_doc > docs/sampler-options.md
#include <cstdio>
#include <string>

#include "pruners/pruner.h"
#include "samplers/auto_sampler.h"
#include "samplers/gp_options.h"
#include "samplers/nsga2_options.h"
#include "samplers/sampler.h"
#include "samplers/sampler_names.h"
#include "samplers/tpe_option_table.h"

namespace hpo {
namespace {

std::string names(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& n : list) out += (out.empty() ? "`" : ", `") + n + "`";
  return out;
}

std::string code(const std::string& text) { return text.empty() ? "" : "`" + text + "`"; }

// The preset's row has no member: its column values are the presets' names.
// n_startup_trials unset follows the budget (startup.h), except under
// `preset: optuna`.
std::string cell(const TpeOptionRow& row, const TpeOptions& options, const char* preset) {
  if (std::holds_alternative<std::monostate>(row.member)) return code(preset);
  if (std::string(row.key) == "n_startup_trials" && std::string(preset) == "default")
    return code("auto");
  return code(tpe_option_text(row, options));
}

void print_auto() {
  const AutoThresholds t;
  std::printf(
      "\n## The `auto` sampler\n\n"
      "The default (a study file without `sampler:` gets it). It takes `seed`, `n_startup_trials` "
      "and\n`startup` (as above, shared by both samplers it delegates to) and decides from the "
      "search space:\n\n"
      "- TPE throughout when the study has `constraints:` (TPE ranks a trial that broke them "
      "after every\n  feasible one; the GP does not model them, and `gp` is refused in such a "
      "study);\n"
      "- TPE throughout when the space has more than %d parameters, or when fewer than %.0f%% of "
      "its\n  parameters are numbers the GP models (floats, ints and numeric choices without a "
      "condition);\n"
      "- else the GP for trials 0-%d, then TPE.\n\n"
      "`hpo run` prints the choice and why; `hpo status --json` shows it under `sampler`.\n",
      t.max_gp_parameters, 100 * t.min_numeric_share, t.gp_trials - 1);
}

void print_gp() {
  std::printf(
      "\n## The `gp` sampler\n\n"
      "Gaussian-process Bayesian optimization (see study-files.md). It takes\n"
      "`seed` and the keys below, for example `sampler: {name: gp, n_startup_trials: 5}`.\n\n"
      "| key | default | accepts | what it does |\n"
      "|---|---|---|---|\n");
  const GpOptions defaults;
  for (const auto& row : gp_option_table()) {
    const std::string value = std::string(row.key) == "n_startup_trials"
                                  ? std::string("auto")
                                  : gp_option_text(row, defaults);
    std::printf("| `%s` | `%s` | %s | %s |\n", row.key, value.c_str(), row.expected,
                row.description);
  }
}

void print_multi_objective() {
  std::printf(
      "\n## Several objectives\n\n"
      "A study with `objectives:` names one of %s (see study-files.md). `tpe` there is\n"
      "multi-objective TPE and takes the `tpe` keys above; `random` and `auto` take only `seed`.\n"
      "\n### The `nsga2` sampler\n\n"
      "NSGA-II with Optuna's defaults, for example `sampler: {name: nsga2, population_size: "
      "40}`.\n\n"
      "| key | default | accepts | what it does |\n"
      "|---|---|---|---|\n",
      names(multi_objective_sampler_names()).c_str());
  const Nsga2Options defaults;
  for (const auto& row : nsga2_option_table()) {
    std::printf("| `%s` | `%s` | %s | %s |\n", row.key, nsga2_option_text(row, defaults).c_str(),
                row.expected, row.description);
  }
  std::printf(
      "\nWhere hpo's samplers for several objectives differ from Optuna 5.0's:\n\n"
      "- NSGA-II picks each parent by a binary tournament on front rank, then crowding distance\n"
      "  (Deb's NSGA-II; Optuna: constrained domination alone); without crossover, a child copies\n"
      "  the first parent picked (Optuna: either parent at random); and the default\n"
      "  `mutation_prob` counts every parameter of the space, conditional ones included (Optuna:\n"
      "  the parameters every trial so far had, less those with one value). Ranks, constrained\n"
      "  domination, crowding distance and survival are Optuna 5.0's.\n"
      "- Multi-objective TPE weighs each good trial in l(x) by its share of their hypervolume, as\n"
      "  Optuna 3.x did, which tools/bench/mo_quality measured (Optuna 5.0 weighs them equally);\n"
      "  a good trial that broke its constraints weighs next to nothing.\n");
}

void print() {
  std::printf(
      "# Sampler options\n\n"
      "<!-- Generated from samplers/tpe_option_table.cc by build/bin/sampler_options_doc; do not "
      "edit.\n"
      "     Regenerate: build/bin/sampler_options_doc > docs/sampler-options.md -->\n\n"
      "Samplers (`sampler: {name: ...}`): %s. Pruners (`pruner: {name: ...}`): %s.\n\n"
      "The `random` sampler takes only `seed`. The `tpe` sampler takes `seed` and the keys below, "
      "for\n"
      "example `sampler: {name: tpe, seed: 1, n_startup_trials: 20}`. The preset is applied "
      "first,\n"
      "then `multivariate`, then the other keys, whatever their order in the file. The three "
      "value\n"
      "columns are the values with no key given, with only `multivariate: false`, and with only\n"
      "`preset: optuna` (Optuna 3.1's TPESampler).\n\n"
      "| key | default | `multivariate: false` | `preset: optuna` | accepts | what it does |\n"
      "|---|---|---|---|---|---|\n",
      names(sampler_names()).c_str(), names(pruner_names()).c_str());
  const TpeOptions joint = default_tpe_options(true), univariate = default_tpe_options(false),
                   optuna = optuna_tpe_options();
  for (const auto& row : tpe_option_table()) {
    std::printf("| `%s` | %s | %s | %s | %s | %s |\n", row.key, cell(row, joint, "default").c_str(),
                cell(row, univariate, "default").c_str(), cell(row, optuna, "optuna").c_str(),
                tpe_option_expected(row, joint).c_str(), row.description);
  }
  print_gp();
  print_auto();
  print_multi_objective();
}

}  // namespace
}  // namespace hpo

int main() {
  hpo::print();
  return 0;
}
