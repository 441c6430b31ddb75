#include "hpo/run/sampler_factory.h"

#include <cmath>

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"
#include "samplers/random_sampler.h"
#include "samplers/tpe_sampler.h"

namespace hpo {

namespace {

// Reads the options of `sampler: {name: tpe, ...}`, one key at a time, with
// errors that name the study file, the key and what was expected.
class TpeOptionReader {
 public:
  TpeOptionReader(const nlohmann::json& options, const std::string& study_file)
      : options_(options), study_file_(study_file) {}

  void flag(const char* key, bool& out) {
    if (const auto* v = find(key)) {
      if (!v->is_boolean()) fail(key, "true or false", *v);
      out = v->get<bool>();
    }
  }

  void integer(const char* key, int& out, int min) {
    if (const auto* v = find(key)) {
      if (!v->is_number_integer() || v->get<int64_t>() < min || v->get<int64_t>() > 1000000) {
        fail(key, "an integer of at least " + std::to_string(min), *v);
      }
      out = v->get<int>();
    }
  }

  // A number in (low, high].
  void number(const char* key, double& out, double low, double high, const std::string& expected) {
    if (const auto* v = find(key)) {
      if (!v->is_number() || !(v->get<double>() > low) || !(v->get<double>() <= high)) {
        fail(key, expected, *v);
      }
      out = v->get<double>();
    }
  }

  // A number in [0, 1).
  void share(const char* key, double& out, const std::string& expected) {
    if (const auto* v = find(key)) {
      if (!v->is_number() || !(v->get<double>() >= 0) || !(v->get<double>() < 1)) fail(key, expected, *v);
      out = v->get<double>();
    }
  }

  // One of `names` (an enum's names, in its order), as a string.
  template <typename Enum>
  void choice(const char* key, Enum& out, const std::vector<std::string>& names) {
    if (const auto* v = find(key)) {
      if (!v->is_string() || !tpe_value_from_name(names, v->get<std::string>(), out)) {
        fail(key, "one of " + join_names(names), *v);
      }
    }
  }

  // Every key must have been read by now.
  void check_unknown() const {
    for (const auto& item : options_.items()) {
      if (std::find(known_.begin(), known_.end(), item.key()) != known_.end()) continue;
      throw ConfigError(study_file_ + ": sampler: unknown tpe option '" + item.key() + "'" +
                        did_you_mean(item.key(), known_) + " (known: " + join_names(known_) + ")");
    }
  }

 private:
  const nlohmann::json* find(const char* key) {
    known_.push_back(key);
    const auto it = options_.find(key);
    return it == options_.end() ? nullptr : &*it;
  }

  [[noreturn]] void fail(const char* key, const std::string& expected, const nlohmann::json& got) const {
    throw ConfigError(study_file_ + ": sampler." + key + ": expected " + expected + ", got " +
                      got.dump());
  }

  const nlohmann::json& options_;
  const std::string& study_file_;
  std::vector<std::string> known_;
};

TpeOptions tpe_options(const nlohmann::json& options, const std::string& study_file) {
  TpeOptions o;
  TpeOptionReader r(options, study_file);
  // The preset first: the other keys adjust it.
  size_t preset = 0;
  r.choice("preset", preset, tpe_preset_names());
  tpe_preset(tpe_preset_names()[preset], o);
  // The mode next (the preset's own is the default): the other keys adjust
  // that mode's values.
  bool multivariate = o.multivariate;
  r.flag("multivariate", multivariate);
  set_tpe_mode(tpe_preset_names()[preset], multivariate, o);
  r.flag("group", o.group);
  r.integer("n_startup_trials", o.n_startup_trials, 0);
  r.integer("n_ei_candidates", o.n_ei_candidates, 1);
  r.choice("split", o.split, tpe_split_names());
  if (o.split == TpeSplitRule::kLinear) {
    r.number("gamma", o.gamma, 0.0, 1.0, "a fraction in (0, 1] of the finished trials (capped at 25)");
  } else {
    r.number("gamma", o.gamma, 0.0, 25.0, "a factor in (0, 25] of the root of the finished trials");
  }
  r.choice("weighting", o.weighting, tpe_weighting_names());
  r.flag("consider_prior", o.consider_prior);
  r.number("prior_weight", o.prior_weight, 0.0, HUGE_VAL, "a positive number");
  r.choice("bandwidth", o.bandwidth, tpe_bandwidth_names());
  r.flag("min_bandwidth_step", o.min_bandwidth_step);
  r.flag("consider_magic_clip", o.consider_magic_clip);
  r.number("min_bandwidth_factor", o.min_bandwidth_factor, 0.0, 1.0, "a fraction in (0, 1] of the range");
  r.number("magic_clip_exponent", o.magic_clip_exponent, 0.0, HUGE_VAL, "a positive number");
  r.flag("consider_endpoints", o.consider_endpoints);
  r.flag("normalized_kernels", o.normalized_kernels);
  r.share("categorical_prior_weight", o.categorical_prior_weight, "0 (Optuna's rule) or a share in (0, 1)");
  r.flag("constant_liar", o.constant_liar);
  r.flag("ordered_choices", o.ordered_choices);
  r.check_unknown();
  return o;
}

}  // namespace

std::vector<std::string> sampler_names() { return {"random", "tpe"}; }

std::unique_ptr<Sampler> make_sampler(const SamplerConfig& config, uint64_t seed,
                                      Direction direction, const std::string& study_file) {
  if (config.name == "random") {
    if (!config.options.empty()) {
      throw ConfigError(study_file + ": sampler: the random sampler takes no options besides 'seed', got '" +
                        config.options.begin().key() + "'");
    }
    return std::make_unique<RandomSampler>(seed, direction);
  }
  if (config.name == "tpe") {
    return std::make_unique<TpeSampler>(seed, direction, tpe_options(config.options, study_file));
  }
  std::string known;
  for (const auto& n : sampler_names()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError(study_file + ": sampler.name: unknown sampler '" + config.name + "' (known: " + known + ")");
}

}  // namespace hpo
