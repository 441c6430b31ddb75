#include "samplers/param_value.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace hpo {

namespace {

// Shortest text that reads back to the same double ("%.17g" is exact but
// noisy: 0.1 would print as 0.10000000000000001).
std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace

std::string to_string(const ParamValue& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return format_double(d); }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, value);
}

std::string short_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string fixed_number(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string to_short_string(const ParamValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return short_number(*d);
  return to_string(value);
}

bool is_numeric(const ParamValue& value) {
  return std::holds_alternative<int64_t>(value) || std::holds_alternative<double>(value);
}

double as_double(const ParamValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  throw std::invalid_argument("value '" + to_string(value) + "' is not a number");
}

bool same_value(const ParamValue& a, const ParamValue& b) {
  if (is_numeric(a) && is_numeric(b)) return as_double(a) == as_double(b);
  return a == b;
}

}  // namespace hpo
