// A parameter value as users see it: what a categorical choice, a sampled
// number or a fixed setting holds.
#ifndef HPO_SAMPLERS_PARAM_VALUE_H_
#define HPO_SAMPLERS_PARAM_VALUE_H_

#include <cstdint>
#include <string>
#include <variant>

namespace hpo {

// std::monostate stands for null (a YAML `~` or JSON `null` choice).
using ParamValue = std::variant<std::monostate, bool, int64_t, double, std::string>;

// Human-readable form: 64, 0.001, true, null, relu.
std::string to_string(const ParamValue& value);

// Four significant digits ("0.07582", "2.786e-05"): for tables and
// progress lines, where the exact value is a lookup away.
std::string short_number(double v);

// `digits` after the point, always ("0.40", "12.00"): for columns of
// figures of one kind, such as seconds and gigabytes.
std::string fixed_number(double v, int digits);

// Like to_string, but doubles as short_number.
std::string to_short_string(const ParamValue& value);

// True for int64_t and double values.
bool is_numeric(const ParamValue& value);

// The numeric value of an int64_t or double; throws std::invalid_argument otherwise.
double as_double(const ParamValue& value);

// Equality as a categorical's choices see it: 64 and 64.0 are one value,
// true and 1 are not.
bool same_value(const ParamValue& a, const ParamValue& b);

}  // namespace hpo

#endif  // HPO_SAMPLERS_PARAM_VALUE_H_
