#include "samplers/gp_options.h"

#include <algorithm>

namespace hpo {

namespace {

// Integers above this are typos, not settings.
constexpr int64_t kMaxInteger = 1000000;

const std::vector<GpOptionRow> kTable = {
    {"n_startup_trials", &GpOptions::n_startup_trials, "an integer of at least 0",
     "Random trials before the GP starts (at least one COMPLETE trial is needed too)."},
    {"deterministic", &GpOptions::deterministic, "true or false",
     "The objective has no noise: the noise variance is fixed near zero instead of estimated."},
};

struct Setter {
  const TpeOptionValue& value;
  GpOptions& out;

  bool operator()(int GpOptions::*member) const {
    const auto* integer = std::get_if<int64_t>(&value.value);
    if (!integer || *integer < 0 || *integer > kMaxInteger) return false;
    out.*member = static_cast<int>(*integer);
    return true;
  }

  bool operator()(bool GpOptions::*member) const {
    const auto* flag = std::get_if<bool>(&value.value);
    if (!flag) return false;
    out.*member = *flag;
    return true;
  }
};

struct Text {
  const GpOptions& options;
  std::string operator()(int GpOptions::*m) const { return std::to_string(options.*m); }
  std::string operator()(bool GpOptions::*m) const { return options.*m ? "true" : "false"; }
};

}  // namespace

const std::vector<GpOptionRow>& gp_option_table() { return kTable; }

std::vector<std::string> gp_option_keys() {
  std::vector<std::string> keys;
  for (const auto& row : kTable) keys.push_back(row.key);
  return keys;
}

std::string gp_option_text(const GpOptionRow& row, const GpOptions& options) {
  return std::visit(Text{options}, row.member);
}

std::optional<TpeOptionError> read_gp_options(const std::map<std::string, TpeOptionValue>& values,
                                              GpOptions& out) {
  for (const auto& [key, value] : values) {
    const auto row = std::find_if(kTable.begin(), kTable.end(),
                                  [&key = key](const GpOptionRow& r) { return key == r.key; });
    if (row == kTable.end()) return TpeOptionError{key, ""};
    if (!std::visit(Setter{value, out}, row->member)) return TpeOptionError{key, row->expected};
  }
  return std::nullopt;
}

}  // namespace hpo
