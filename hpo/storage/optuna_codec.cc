#include "hpo/storage/optuna_codec.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string_view>

namespace hpo {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// Appends `text` as a JSON string with non-ASCII escaped, as Python's
// json.dumps writes it.
void append_quoted(const std::string& text, std::string& out) {
  out += json(text).dump(-1, ' ', true);
}

// Writes `value` as Python's json.dumps would (", " and ": " separators,
// NaN and Infinity bare), appending to `out`: attributes are encoded for
// every trial, so no intermediate strings.
template <typename Json>
void append_python_json(const Json& value, std::string& out) {
  if (value.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      append_quoted(it.key(), out);
      out += ": ";
      append_python_json(it.value(), out);
    }
    out += '}';
    return;
  }
  if (value.is_array()) {
    out += '[';
    for (size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += ", ";
      append_python_json(value[i], out);
    }
    out += ']';
    return;
  }
  if (value.is_number_float()) {
    // nlohmann writes non-finite numbers as null; Python writes these
    // tokens, and Optuna reads them back with json.loads.
    const double d = value.template get<double>();
    if (std::isnan(d)) {
      out += "NaN";
      return;
    }
    if (std::isinf(d)) {
      out += d > 0 ? "Infinity" : "-Infinity";
      return;
    }
  }
  out += value.dump(-1, ' ', true);
}

template <typename Json>
std::string python_json(const Json& value) {
  std::string out;
  append_python_json(value, out);
  return out;
}

double number(const json& attrs, const char* key) { return attrs.at(key).get<double>(); }

int64_t integer(const json& attrs, const char* key) { return attrs.at(key).get<int64_t>(); }

bool flag(const json& attrs, const char* key) { return attrs.value(key, false); }

std::optional<double> optional_number(const json& attrs, const char* key) {
  if (!attrs.contains(key) || attrs.at(key).is_null()) return std::nullopt;
  return number(attrs, key);
}

int64_t int_step(const json& attrs) {
  if (!attrs.contains("step") || attrs.at("step").is_null()) return 1;
  return integer(attrs, "step");
}

CategoricalDistribution categorical(const json& choices) {
  CategoricalDistribution dist;
  for (const auto& choice : choices) dist.choices.push_back(param_value_from_json(choice));
  return dist;
}

// Optuna's current classes and the legacy ones its older versions stored.
Distribution decode_named(const std::string& name, const json& attrs) {
  const auto low = [&] { return number(attrs, "low"); };
  const auto high = [&] { return number(attrs, "high"); };
  if (name == "FloatDistribution") {
    return FloatDistribution{low(), high(), flag(attrs, "log"), optional_number(attrs, "step")};
  }
  if (name == "IntDistribution") {
    return IntDistribution{integer(attrs, "low"), integer(attrs, "high"), flag(attrs, "log"),
                           int_step(attrs)};
  }
  if (name == "CategoricalDistribution") return categorical(attrs.at("choices"));
  if (name == "UniformDistribution") return FloatDistribution{low(), high(), false, std::nullopt};
  if (name == "LogUniformDistribution") return FloatDistribution{low(), high(), true, std::nullopt};
  if (name == "DiscreteUniformDistribution") {
    return FloatDistribution{low(), high(), false, number(attrs, "q")};
  }
  if (name == "IntUniformDistribution" || name == "IntLogUniformDistribution") {
    return IntDistribution{integer(attrs, "low"), integer(attrs, "high"),
                           name == "IntLogUniformDistribution", int_step(attrs)};
  }
  throw std::invalid_argument("unknown distribution '" + name + "'");
}

// {"type": "float", "low": 0, "high": 1, "step": null, "log": false}: the
// short form Optuna also accepts.
Distribution decode_abbreviated(const json& j) {
  const std::string type = j.at("type").get<std::string>();
  if (type == "categorical") return categorical(j.at("choices"));
  if (type == "float") {
    return FloatDistribution{number(j, "low"), number(j, "high"), flag(j, "log"),
                             optional_number(j, "step")};
  }
  if (type == "int") {
    return IntDistribution{integer(j, "low"), integer(j, "high"), flag(j, "log"), int_step(j)};
  }
  throw std::invalid_argument("unknown distribution type '" + type + "'");
}

// Attribute order as Optuna writes it, so the stored text matches too.
ordered_json attributes(const Distribution& dist) {
  ordered_json attrs = ordered_json::object();
  if (const auto* f = std::get_if<FloatDistribution>(&dist)) {
    attrs["step"] = f->step ? ordered_json(*f->step) : ordered_json(nullptr);
    attrs["low"] = f->low;
    attrs["high"] = f->high;
    attrs["log"] = f->log;
  } else if (const auto* i = std::get_if<IntDistribution>(&dist)) {
    attrs["log"] = i->log;
    attrs["step"] = i->step;
    attrs["low"] = i->low;
    attrs["high"] = i->high;
  } else {
    ordered_json choices = ordered_json::array();
    for (const auto& c : std::get<CategoricalDistribution>(dist).choices) {
      choices.push_back(ordered_json(param_value_to_json(c)));
    }
    attrs["choices"] = choices;
  }
  return attrs;
}

const char* class_name(const Distribution& dist) {
  if (std::holds_alternative<FloatDistribution>(dist)) return "FloatDistribution";
  if (std::holds_alternative<IntDistribution>(dist)) return "IntDistribution";
  return "CategoricalDistribution";
}

}  // namespace

std::string to_python_json(const json& value) { return python_json(value); }

std::string to_python_json(const ordered_json& value) { return python_json(value); }

namespace {

// Python's json writes NaN, Infinity and -Infinity as bare tokens, inside
// lists and dicts too (Optuna's user attrs, its constraints); JSON, and so
// nlohmann, has no such tokens. Outside strings each becomes the string of
// a control byte and the token, which the parsed value then turns back into
// its number: no Python string holds such a string by chance.
struct PythonToken {
  std::string_view token;
  double number;
};

constexpr PythonToken kPythonTokens[] = {{"-Infinity", -std::numeric_limits<double>::infinity()},
                                         {"Infinity", std::numeric_limits<double>::infinity()},
                                         {"NaN", std::numeric_limits<double>::quiet_NaN()}};

std::string quote_python_tokens(const std::string& text) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const PythonToken& t : kPythonTokens) {
      if (text.compare(i, t.token.size(), t.token) != 0) continue;
      out += "\"\\u0001";
      out += t.token;
      out += '"';
      i += t.token.size() - 1;
      replaced = true;
      break;
    }
    if (!replaced) out += c;
  }
  return out;
}

void restore_python_tokens(json& value) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text.empty() || text[0] != '\x01') return;
    for (const PythonToken& t : kPythonTokens) {
      if (std::string_view(text).substr(1) != t.token) continue;
      value = t.number;
      return;
    }
  } else if (value.is_structured()) {
    for (auto& item : value) restore_python_tokens(item);
  }
}

}  // namespace

json from_python_json(const std::string& text) {
  // Plain JSON, most values: parsed once, without an exception's cost.
  json plain = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!plain.is_discarded()) return plain;
  try {  // Python's own tokens, alone or nested; else the text is bad
    json value = json::parse(quote_python_tokens(text));
    restore_python_tokens(value);
    return value;
  } catch (const json::exception& e) {
    throw std::invalid_argument("bad value_json '" + text + "': " + e.what());
  }
}

std::string encode_distribution(const Distribution& dist) {
  ordered_json j = ordered_json::object();
  j["name"] = class_name(dist);
  j["attributes"] = attributes(dist);
  return python_json(j);
}

Distribution decode_distribution(const std::string& text) {
  try {
    const json j = json::parse(text);
    if (j.contains("name")) {
      return decode_named(j.at("name").get<std::string>(), j.at("attributes"));
    }
    return decode_abbreviated(j);
  } catch (const json::exception& e) {
    throw std::invalid_argument("bad distribution_json '" + text + "': " + e.what());
  }
}

json param_value_to_json(const ParamValue& value) {
  struct Visitor {
    json operator()(std::monostate) const { return nullptr; }
    json operator()(bool b) const { return b; }
    json operator()(int64_t i) const { return i; }
    json operator()(double d) const { return d; }
    json operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, value);
}

ParamValue param_value_from_json(const json& value) {
  if (value.is_null()) return std::monostate{};
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) return value.get<double>();
  if (value.is_string()) return value.get<std::string>();
  throw std::invalid_argument("a choice must be null, a bool, a number or a string, not " +
                              value.dump());
}

EncodedValue encode_value(double value) {
  if (std::isnan(value)) return {std::nullopt, "NAN"};
  if (std::isinf(value)) return {std::nullopt, value > 0 ? "INF_POS" : "INF_NEG"};
  return {value, "FINITE"};
}

double decode_value(const std::optional<double>& value, const std::string& type) {
  if (type == "FINITE") {
    if (!value) throw std::invalid_argument("FINITE value is NULL");
    return *value;
  }
  if (type == "INF_POS") return std::numeric_limits<double>::infinity();
  if (type == "INF_NEG") return -std::numeric_limits<double>::infinity();
  if (type == "NAN") return std::numeric_limits<double>::quiet_NaN();
  throw std::invalid_argument("unknown value type '" + type + "'");
}

std::string format_datetime(std::chrono::system_clock::time_point time) {
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  const auto since_epoch = duration_cast<microseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(since_epoch / 1000000);
  const long micros = static_cast<long>(since_epoch % 1000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%06ld", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, micros);
  return buf;
}

std::string datetime_now() { return format_datetime(std::chrono::system_clock::now()); }

}  // namespace hpo
