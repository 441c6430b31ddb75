#include "samplers/nsga2_options.h"

#include <cstdio>

#include "samplers/option_rows.h"

namespace hpo {

namespace {

const std::vector<Nsga2OptionRow> kNsga2Table = {
    {"population_size", &Nsga2Options::population_size, "an integer from 2 to 100000",
     "Trials per generation; trial n belongs to generation n / population_size."},
    {"crossover_prob", &Nsga2Options::crossover_prob, "a number from 0 to 1",
     "Chance that a child mixes two parents (uniform crossover); otherwise it copies one."},
    {"swapping_prob", &Nsga2Options::swapping_prob, "a number from 0 to 1",
     "Uniform crossover: the chance that each parameter comes from the second parent."},
    {"mutation_prob", &Nsga2Options::mutation_prob, "a number from 0 to 1",
     "Chance that each parameter is drawn anew at random; default 1 / (number of parameters)."},
};

struct Nsga2Setter {
  const TpeOptionValue& value;
  Nsga2Options& out;

  bool operator()(int Nsga2Options::*member) const {
    const auto* integer = std::get_if<int64_t>(&value.value);
    if (!integer || *integer < 2 || *integer > 100000) return false;
    out.*member = static_cast<int>(*integer);
    return true;
  }

  bool operator()(double Nsga2Options::*member) const {
    double v = 0;
    if (const auto* d = std::get_if<double>(&value.value))
      v = *d;
    else if (const auto* i = std::get_if<int64_t>(&value.value))
      v = static_cast<double>(*i);
    else
      return false;
    if (!(v >= 0 && v <= 1)) return false;
    out.*member = v;
    return true;
  }
};

struct Nsga2Text {
  const Nsga2Options& options;
  std::string operator()(int Nsga2Options::*m) const { return std::to_string(options.*m); }
  std::string operator()(double Nsga2Options::*m) const {
    if (options.*m < 0) return "auto";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", options.*m);
    return buf;
  }
};

}  // namespace

const std::vector<Nsga2OptionRow>& nsga2_option_table() { return kNsga2Table; }

std::vector<std::string> nsga2_option_keys() { return option_row_keys(kNsga2Table); }

std::string nsga2_option_text(const Nsga2OptionRow& row, const Nsga2Options& options) {
  return std::visit(Nsga2Text{options}, row.member);
}

std::optional<TpeOptionError> read_nsga2_options(
    const std::map<std::string, TpeOptionValue>& values, Nsga2Options& out) {
  return read_independent_options<Nsga2Setter>(kNsga2Table, values, out);
}

}  // namespace hpo
