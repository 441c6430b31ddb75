// TPE's options. The defaults follow the recommended setting of Watanabe
// (2023), "Tree-Structured Parzen Estimator: Understanding Its Algorithm
// Components and Their Roles for Better Empirical Performance" (arXiv
// 2304.11127): one joint model, a split at 15%, expected-improvement
// weights, Hyperopt's bandwidths with the floor max(0.03, 1/(n+1)^2) of the
// range. Each was checked against Optuna 3.1 on tools/bench/sampler_quality/run
// (see README.md); Scott's rule, the other rules and weights stay options.
// optuna_tpe_options() gives Optuna 3.1's TPESampler exactly.
#ifndef HPO_SAMPLERS_TPE_OPTIONS_H_
#define HPO_SAMPLERS_TPE_OPTIONS_H_

#include <algorithm>
#include <string>
#include <vector>

#include "samplers/startup.h"

namespace hpo {

// How many of the finished trials make up "below" (the good ones), at most 25.
enum class TpeSplitRule {
  kLinear,  // ceil(gamma * n)
  kSqrt,  // ceil(gamma * sqrt(n))
};

// How the observations in l(x) and g(x) are weighted.
enum class TpeWeighting {
  kOptuna,  // 1 each; beyond the newest 25, older ones ramp down to 1/n
  kUniform,  // 1 each
  // l(x): each good trial by its improvement over the best of the rest, so
  // that the best trials dominate l(x) (the expected-improvement weighting);
  // g(x): 1 each.
  kExpectedImprovement,
};

// How wide each numeric kernel is, before the clip.
enum class TpeBandwidth {
  // Optuna 3.1: the larger gap to the sorted neighbours (the domain's ends
  // count only with consider_endpoints); with multivariate, BOHB's rule
  // 0.2 * n^(-1/(d+4)) * range for all kernels.
  kOptuna,
  kNeighbours,  // Hyperopt's: the larger gap to the sorted neighbours or the domain's ends
  kScott,  // Scott's rule over the kernels' means, one width per dimension
};

struct TpeOptions {
  // One joint estimator over the parameters instead of one per parameter.
  bool multivariate = true;
  // With multivariate: model jointly the groups of parameters that always
  // occur together, instead of only the parameters every trial holds.
  bool group = false;
  // Startup trials before TPE starts. A study file that sets none gets
  // auto_startup_trials (startup.h) of its planned trials instead.
  int n_startup_trials = 10;
  StartupKind startup = StartupKind::kSobol;  // how the startup trials are drawn
  int n_ei_candidates = 24;  // draws from l(x) to choose from
  TpeSplitRule split = TpeSplitRule::kLinear;
  double gamma = 0.15;  // the split rule's factor (the paper's beta)
  TpeWeighting weighting = TpeWeighting::kExpectedImprovement;
  bool consider_prior = true;  // a broad prior kernel in each estimator
  // The prior kernel's weight, relative to an observation's (to the mean of
  // the weights under the expected-improvement weighting).
  double prior_weight = 1.0;
  TpeBandwidth bandwidth = TpeBandwidth::kNeighbours;
  // The magic clip: bandwidths at least range * max(min_bandwidth_factor,
  // (kernels + 1)^-magic_clip_exponent). Optuna: 0.01 and 1.
  bool consider_magic_clip = true;
  double min_bandwidth_factor = 0.03;
  double magic_clip_exponent = 2.0;
  // Grid kernels (ints, steps, ordered choices) at least one step wide.
  bool min_bandwidth_step = false;
  bool consider_endpoints =
      false;  // kOptuna only: outermost kernels also look at the domain's ends
  // Continuous kernels as normalized densities. Optuna 3.1 weighs each by
  // its width instead (see ContinuousKernels::fit).
  bool normalized_kernels = true;
  // A categorical kernel puts 1 - this on its observed choice and spreads
  // this over the others (Aitchison-Aitken); 0: Optuna's rule, the prior
  // weight spread over all choices.
  double categorical_prior_weight = 0.0;
  // RUNNING trials count as the worst observations ("above"), so parallel
  // workers spread out. On by default: with one worker nothing is running
  // when it asks, so this changes nothing there.
  bool constant_liar = true;
  bool ordered_choices = true;  // numeric categoricals are modelled as ordered
  // With multivariate: one model per parameter instead when at least this
  // many parameters are free (0: never). Multi-objective TPE sets it
  // (motpe_default_options): a joint kernel over 10 or more parameters
  // fitted to at most 25 good trials spreads too thin.
  int per_parameter_from = 0;
};

// Optuna 3.1's TPESampler with its defaults, knob for knob: independent
// parameters, gamma 0.1, Optuna's weights and bandwidths, width-weighted
// kernels, no constant liar, unordered choices.
TpeOptions optuna_tpe_options();

// The default preset for each mode. Joint (multivariate): TpeOptions{}.
// One model per parameter: Optuna 3.1's univariate algorithm with hpo's
// ordered numeric choices and constant liar. The joint model's narrow
// bandwidth floor and expected-improvement weights search poorly when each
// parameter is modelled alone (README, Benchmarks), so the mode picks them.
TpeOptions default_tpe_options(bool multivariate);

// The presets by name ("default", "optuna"); false for an unknown name.
// "default" is default_tpe_options(true).
bool tpe_preset(const std::string& name, TpeOptions& out);

// Sets the mode of options that preset `preset` gave: under "default", the
// values are that mode's own (default_tpe_options); under any other preset
// only the flag changes. Study files and the quality bench both call it
// right after the preset, so that the other keys adjust the mode's values.
void set_tpe_mode(const std::string& preset, bool multivariate, TpeOptions& out);

// The names study files use: for the presets, and for each enum's values in
// the enum's order.
const std::vector<std::string>& tpe_preset_names();  // default, optuna
const std::vector<std::string>& tpe_split_names();  // linear, sqrt
const std::vector<std::string>& tpe_weighting_names();  // optuna, uniform, expected_improvement
const std::vector<std::string>& tpe_bandwidth_names();  // optuna, neighbours, scott

// Sets `out` to the value called `name` in `names` (one of the enum lists
// above); false, with `out` unchanged, for a name not in the list.
template <typename Enum>
bool tpe_value_from_name(const std::vector<std::string>& names, const std::string& name,
                         Enum& out) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return false;
  out = static_cast<Enum>(it - names.begin());
  return true;
}

}  // namespace hpo

#endif  // HPO_SAMPLERS_TPE_OPTIONS_H_
