#include "samplers/tpe_options.h"

namespace hpo {

TpeOptions optuna_tpe_options() {
  TpeOptions o;
  o.multivariate = false;
  o.split = TpeSplitRule::kLinear;
  o.gamma = 0.1;
  o.weighting = TpeWeighting::kOptuna;
  o.bandwidth = TpeBandwidth::kOptuna;
  o.min_bandwidth_factor = 0.01;
  o.magic_clip_exponent = 1.0;
  o.min_bandwidth_step = false;
  o.normalized_kernels = false;
  o.categorical_prior_weight = 0.0;
  o.constant_liar = false;
  o.startup = StartupKind::kRandom;
  o.ordered_choices = false;
  return o;
}

TpeOptions default_tpe_options(bool multivariate) {
  if (multivariate) return TpeOptions{};
  TpeOptions o = optuna_tpe_options();
  o.constant_liar = true;
  o.ordered_choices = true;
  o.startup = StartupKind::kSobol;
  return o;
}

bool tpe_preset(const std::string& name, TpeOptions& out) {
  if (name == "default") {
    out = default_tpe_options(true);
  } else if (name == "optuna") {
    out = optuna_tpe_options();
  } else {
    return false;
  }
  return true;
}

void set_tpe_mode(const std::string& preset, bool multivariate, TpeOptions& out) {
  if (preset == "default") {
    out = default_tpe_options(multivariate);
  } else {
    out.multivariate = multivariate;
  }
}

const std::vector<std::string>& tpe_preset_names() {
  static const std::vector<std::string> names = {"default", "optuna"};
  return names;
}

const std::vector<std::string>& tpe_split_names() {
  static const std::vector<std::string> names = {"linear", "sqrt"};
  return names;
}

const std::vector<std::string>& tpe_weighting_names() {
  static const std::vector<std::string> names = {"optuna", "uniform", "expected_improvement"};
  return names;
}

const std::vector<std::string>& tpe_bandwidth_names() {
  static const std::vector<std::string> names = {"optuna", "neighbours", "scott"};
  return names;
}

}  // namespace hpo
