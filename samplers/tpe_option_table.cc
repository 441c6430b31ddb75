#include "samplers/tpe_option_table.h"

#include <cmath>
#include <sstream>

#include "samplers/option_rows.h"

namespace hpo {

namespace {

// Integers above this are typos, not settings.
constexpr double kTpeMaxInteger = 1000000;

// Every check is written `valid ? nullptr : expected`, so that NaN, which
// fails every comparison, yields the expected text (see expected_number).
const std::vector<TpeOptionRow> kTpeTable = {
    {"preset", std::monostate{}, nullptr,
     "The values the other keys adjust: default (hpo's), or optuna (Optuna 3.1's TPESampler)."},
    {"multivariate", &TpeOptions::multivariate, nullptr,
     "One joint model over the parameters instead of one per parameter; under the default preset, "
     "false also picks the univariate defaults."},
    {"group", &TpeOptions::group, nullptr,
     "With multivariate: model jointly each group of parameters that always occur together. A "
     "conditional search space (condition:) is always modelled so."},
    {"n_startup_trials", &TpeOptions::n_startup_trials,
     [](double v, const TpeOptions&) -> const char* {
       return v >= 0 && v <= kTpeMaxInteger ? nullptr : "an integer of at least 0";
     },
     "Startup trials before TPE starts; unset: a quarter of the study's n_trials, between "
     "min(3, parameters) and 10 (10 when n_trials is unknown or the space is mostly "
     "conditional)."},
    {"startup", &TpeOptions::startup, nullptr,
     "How the startup trials are drawn: sobol (scrambled Sobol points, space-filling) or random "
     "(independent uniform draws)."},
    {"n_ei_candidates", &TpeOptions::n_ei_candidates,
     [](double v, const TpeOptions&) -> const char* {
       return v >= 1 && v <= kTpeMaxInteger ? nullptr : "an integer of at least 1";
     },
     "Draws from l(x) to choose the suggestion from."},
    {"split", &TpeOptions::split, nullptr,
     "How many finished trials are the good ones: ceil(gamma * n) or ceil(gamma * sqrt(n)), at "
     "most 25."},
    {"gamma", &TpeOptions::gamma,
     [](double v, const TpeOptions& so_far) -> const char* {
       if (so_far.split == TpeSplitRule::kSqrt) {
         return v > 0 && v <= 25 ? nullptr
                                 : "a factor in (0, 25] of the root of the finished trials";
       }
       return v > 0 && v <= 1 ? nullptr
                              : "a fraction in (0, 1] of the finished trials (capped at 25)";
     },
     "The split's factor (with split: sqrt, a factor in (0, 25])."},
    {"weighting", &TpeOptions::weighting, nullptr,
     "How observations are weighted: Optuna's ramp, uniform, or the good ones by their "
     "improvement."},
    {"consider_prior", &TpeOptions::consider_prior, nullptr,
     "A broad prior kernel in each estimator."},
    {"prior_weight", &TpeOptions::prior_weight,
     [](double v, const TpeOptions&) -> const char* {
       return v > 0 && v < HUGE_VAL ? nullptr : "a positive number";
     },
     "The prior kernel's weight, relative to an observation's."},
    {"bandwidth", &TpeOptions::bandwidth, nullptr,
     "How wide each numeric kernel is: Optuna 3.1's rule, the gap to the neighbours (Hyperopt's), "
     "or Scott's rule."},
    {"min_bandwidth_step", &TpeOptions::min_bandwidth_step, nullptr,
     "Grid kernels (ints, steps, ordered choices) at least one step wide."},
    {"consider_magic_clip", &TpeOptions::consider_magic_clip, nullptr,
     "Floor the bandwidths at range * max(min_bandwidth_factor, (kernels + "
     "1)^-magic_clip_exponent)."},
    {"min_bandwidth_factor", &TpeOptions::min_bandwidth_factor,
     [](double v, const TpeOptions&) -> const char* {
       return v > 0 && v <= 1 ? nullptr : "a fraction in (0, 1] of the range";
     },
     "The magic clip's fixed floor."},
    {"magic_clip_exponent", &TpeOptions::magic_clip_exponent,
     [](double v, const TpeOptions&) -> const char* {
       return v > 0 && v < HUGE_VAL ? nullptr : "a positive number";
     },
     "The magic clip's exponent."},
    {"consider_endpoints", &TpeOptions::consider_endpoints, nullptr,
     "With bandwidth: optuna, the outermost kernels also look at the domain's ends."},
    {"normalized_kernels", &TpeOptions::normalized_kernels, nullptr,
     "Continuous kernels as normalized densities; false: weighted by their width, as Optuna 3.1."},
    {"categorical_prior_weight", &TpeOptions::categorical_prior_weight,
     [](double v, const TpeOptions&) -> const char* {
       return v >= 0 && v < 1 ? nullptr : "0 (Optuna's rule) or a share in (0, 1)";
     },
     "A categorical kernel spreads this share over the choices it did not observe; 0: Optuna's "
     "rule."},
    {"constant_liar", &TpeOptions::constant_liar, nullptr,
     "Running trials count as the worst observations, so that parallel workers spread out."},
    {"ordered_choices", &TpeOptions::ordered_choices, nullptr,
     "Numeric categorical choices (batch sizes, widths) are modelled as ordered."},
};

const std::vector<std::string>& names_of(TpeSplitRule TpeOptions::*) { return tpe_split_names(); }
const std::vector<std::string>& names_of(TpeWeighting TpeOptions::*) {
  return tpe_weighting_names();
}
const std::vector<std::string>& names_of(TpeBandwidth TpeOptions::*) {
  return tpe_bandwidth_names();
}
const std::vector<std::string>& names_of(StartupKind TpeOptions::*) { return startup_names(); }
const std::vector<std::string>& names_of(std::monostate) { return tpe_preset_names(); }

std::string one_of(const std::vector<std::string>& names) {
  std::string out = "one of ";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// Reads one row's value into `out`; false when it is not valid there.
// `preset` is the preset read so far, which the mode's row needs.
class RowReader {
 public:
  RowReader(const TpeOptionRow& row, const TpeOptionValue& value, const std::string& preset,
            TpeOptions& out)
      : row_(row), value_(value), preset_(preset), out_(out) {}

  bool operator()(std::monostate) {  // the preset
    const auto* name = std::get_if<std::string>(&value_.value);
    return name && tpe_preset(*name, out_);
  }

  bool operator()(bool TpeOptions::*member) {
    const auto* flag = std::get_if<bool>(&value_.value);
    if (!flag) return false;
    if (member == &TpeOptions::multivariate) {
      set_tpe_mode(preset_, *flag, out_);
    } else {
      out_.*member = *flag;
    }
    return true;
  }

  bool operator()(int TpeOptions::*member) {
    const auto* integer = std::get_if<int64_t>(&value_.value);
    if (!integer || row_.check(static_cast<double>(*integer), out_)) return false;
    out_.*member = static_cast<int>(*integer);
    return true;
  }

  bool operator()(double TpeOptions::*member) {
    double v = NAN;
    if (const auto* integer = std::get_if<int64_t>(&value_.value))
      v = static_cast<double>(*integer);
    if (const auto* number = std::get_if<double>(&value_.value)) v = *number;
    if (row_.check(v, out_)) return false;
    out_.*member = v;
    return true;
  }

  template <typename Enum>
  bool operator()(Enum TpeOptions::*member) {
    const auto* name = std::get_if<std::string>(&value_.value);
    return name && tpe_value_from_name(names_of(member), *name, out_.*member);
  }

 private:
  const TpeOptionRow& row_;
  const TpeOptionValue& value_;
  const std::string& preset_;
  TpeOptions& out_;
};

// A member's value in `o`, as a study file writes it.
struct TextOf {
  const TpeOptions& o;
  std::string operator()(std::monostate) const { return ""; }
  std::string operator()(bool TpeOptions::*m) const { return o.*m ? "true" : "false"; }
  std::string operator()(int TpeOptions::*m) const { return std::to_string(o.*m); }
  std::string operator()(double TpeOptions::*m) const { return number_text(o.*m); }
  template <typename Enum>
  std::string operator()(Enum TpeOptions::*m) const {
    return names_of(m)[static_cast<size_t>(o.*m)];
  }
};

// What a member without a check accepts.
struct ExpectedOf {
  std::string operator()(bool TpeOptions::*) const { return "true or false"; }
  std::string operator()(int TpeOptions::*) const { return "an integer"; }  // rows have a check
  std::string operator()(double TpeOptions::*) const { return "a number"; }  // rows have a check
  template <typename Member>
  std::string operator()(Member member) const {
    return one_of(names_of(member));
  }
};

}  // namespace

const std::vector<TpeOptionRow>& tpe_option_table() { return kTpeTable; }

std::vector<std::string> tpe_option_keys() { return option_row_keys(kTpeTable); }

std::optional<TpeOptionError> read_tpe_options(const std::map<std::string, TpeOptionValue>& values,
                                               TpeOptions& out) {
  for (const auto& entry : values)
    if (!find_option_row(kTpeTable, entry.first)) return TpeOptionError{entry.first, ""};
  std::string preset = "default";
  for (const auto& row : kTpeTable) {
    const auto it = values.find(row.key);
    if (it == values.end()) continue;
    const std::string expected = tpe_option_expected(row, out);
    if (!std::visit(RowReader(row, it->second, preset, out), row.member))
      return TpeOptionError{row.key, expected};
    if (std::holds_alternative<std::monostate>(row.member))
      preset = std::get<std::string>(it->second.value);
  }
  return std::nullopt;
}

std::string tpe_option_text(const TpeOptionRow& row, const TpeOptions& options) {
  return std::visit(TextOf{options}, row.member);
}

std::string tpe_option_expected(const TpeOptionRow& row, const TpeOptions& so_far) {
  if (row.check) return row.check(NAN, so_far);  // NaN is never valid: the check names what is
  return std::visit(ExpectedOf{}, row.member);
}

}  // namespace hpo
