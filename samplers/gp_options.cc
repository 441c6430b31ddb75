#include "samplers/gp_options.h"

#include "samplers/option_rows.h"

namespace hpo {

namespace {

// Integers above this are typos, not settings.
constexpr int64_t kGpMaxInteger = 1000000;

const std::vector<GpOptionRow> kGpTable = {
    {"n_startup_trials", &GpOptions::n_startup_trials, "an integer of at least 0",
     "Startup trials before the GP starts (at least one COMPLETE trial is needed too); unset: a "
     "quarter of the study's n_trials, between min(3, parameters) and 10 (10 when n_trials is "
     "unknown or the space is mostly conditional)."},
    {"startup", &GpOptions::startup, "one of sobol, random",
     "How the startup trials are drawn: sobol (scrambled Sobol points, space-filling) or random "
     "(independent uniform draws)."},
    {"deterministic", &GpOptions::deterministic, "true or false",
     "The objective has no noise: the noise variance is fixed near zero instead of estimated."},
};

struct GpSetter {
  const TpeOptionValue& value;
  GpOptions& out;

  bool operator()(int GpOptions::*member) const {
    const auto* integer = std::get_if<int64_t>(&value.value);
    if (!integer || *integer < 0 || *integer > kGpMaxInteger) return false;
    out.*member = static_cast<int>(*integer);
    return true;
  }

  bool operator()(bool GpOptions::*member) const {
    const auto* flag = std::get_if<bool>(&value.value);
    if (!flag) return false;
    out.*member = *flag;
    return true;
  }

  bool operator()(StartupKind GpOptions::*member) const {
    const auto* name = std::get_if<std::string>(&value.value);
    return name && tpe_value_from_name(startup_names(), *name, out.*member);
  }
};

struct GpText {
  const GpOptions& options;
  std::string operator()(int GpOptions::*m) const { return std::to_string(options.*m); }
  std::string operator()(bool GpOptions::*m) const { return options.*m ? "true" : "false"; }
  std::string operator()(StartupKind GpOptions::*m) const {
    return startup_names()[static_cast<size_t>(options.*m)];
  }
};

}  // namespace

const std::vector<GpOptionRow>& gp_option_table() { return kGpTable; }

std::vector<std::string> gp_option_keys() { return option_row_keys(kGpTable); }

std::string gp_option_text(const GpOptionRow& row, const GpOptions& options) {
  return std::visit(GpText{options}, row.member);
}

std::optional<TpeOptionError> read_gp_options(const std::map<std::string, TpeOptionValue>& values,
                                              GpOptions& out) {
  return read_independent_options<GpSetter>(kGpTable, values, out);
}

}  // namespace hpo
