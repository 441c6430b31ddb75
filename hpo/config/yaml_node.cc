#include "hpo/config/yaml_node.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"
#include "hpo/text/utf8.h"

namespace hpo {

namespace {

enum class ScalarKind { kNull, kBool, kInt, kFloat, kString };

// The YAML 1.2 core schema's patterns. yaml-cpp leaves plain scalars untyped
// (tag "?") and its as<T>() conversions go through iostreams with their own
// notion of a number, so the schema is applied here, explicitly.
bool is_int_text(const std::string& s) {
  static const std::regex re("[-+]?[0-9]+");
  return std::regex_match(s, re);
}

bool is_float_text(const std::string& s) {
  static const std::regex re(
      "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?"
      "|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
  return std::regex_match(s, re);
}

bool is_true_text(const std::string& s) { return s == "true" || s == "True" || s == "TRUE"; }
bool is_false_text(const std::string& s) { return s == "false" || s == "False" || s == "FALSE"; }

ScalarKind kind_of(const YAML::Node& node) {
  if (node.IsNull()) return ScalarKind::kNull;
  // Quoted scalars carry the non-specific tag "!"; they are always strings.
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return ScalarKind::kString;
  const std::string& text = node.Scalar();
  if (is_true_text(text) || is_false_text(text)) return ScalarKind::kBool;
  if (is_int_text(text)) return ScalarKind::kInt;
  if (is_float_text(text)) return ScalarKind::kFloat;
  return ScalarKind::kString;
}

// from_chars, unlike strtod, ignores the C locale's decimal point; neither
// knows YAML's ".inf" and ".nan".
double parse_float_text(const std::string& text) {
  const size_t dot = text.find('.');
  if (dot != std::string::npos && dot + 1 < text.size() &&
      std::isalpha(static_cast<unsigned char>(text[dot + 1]))) {
    if (text[dot + 1] == 'n' || text[dot + 1] == 'N')
      return std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    return text[0] == '-' ? -inf : inf;
  }
  // from_chars rejects a leading '+'. Out of range, it reports an error and
  // leaves `value` alone: make that inf (or 0 for an underflow) as strtod would.
  const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
  double value = 0;
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    const bool tiny = text.find_first_of("eE") != std::string::npos &&
                      text.find('-', text.find_first_of("eE")) != std::string::npos;
    const double magnitude = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    return text[0] == '-' ? -magnitude : magnitude;
  }
  return value;
}

}  // namespace

YamlNode::YamlNode(YAML::Node node, std::string file, std::string key_path)
    : node_(std::move(node)), file_(std::move(file)), key_path_(std::move(key_path)) {
  const int line = node_.Mark().line;
  line_ = line < 0 ? 0 : line + 1;
}

void YamlNode::fail(const std::string& what) const {
  std::string where = file_;
  if (line() > 0) where += ":" + std::to_string(line());
  if (!key_path_.empty()) where += ": " + key_path_;
  throw ConfigError(where + ": " + what);
}

std::string YamlNode::describe() const {
  if (node_.IsNull()) return "nothing";
  if (node_.IsSequence()) return "a list";
  if (node_.IsMap()) return "a mapping";
  return "'" + node_.Scalar() + "'";
}

std::string YamlNode::as_string() const {
  const ScalarKind kind = node_.IsScalar() ? kind_of(node_) : ScalarKind::kNull;
  if (!node_.IsScalar() || kind == ScalarKind::kNull || kind == ScalarKind::kBool) {
    fail("expected a string, got " + describe());
  }
  return node_.Scalar();
}

double YamlNode::as_double() const {
  const ScalarKind kind = node_.IsScalar() ? kind_of(node_) : ScalarKind::kNull;
  if (kind != ScalarKind::kInt && kind != ScalarKind::kFloat) {
    fail("expected a number, got " + describe());
  }
  return parse_float_text(node_.Scalar());
}

int64_t YamlNode::as_int() const {
  const ScalarKind kind = node_.IsScalar() ? kind_of(node_) : ScalarKind::kNull;
  if (kind != ScalarKind::kInt) fail("expected an integer, got " + describe());
  errno = 0;
  const long long value = std::strtoll(node_.Scalar().c_str(), nullptr, 10);
  if (errno == ERANGE) fail("integer " + node_.Scalar() + " is out of range (64-bit)");
  return static_cast<int64_t>(value);
}

bool YamlNode::as_bool() const {
  const ScalarKind kind = node_.IsScalar() ? kind_of(node_) : ScalarKind::kNull;
  if (kind != ScalarKind::kBool) fail("expected true or false, got " + describe());
  return is_true_text(node_.Scalar());
}

ParamValue YamlNode::as_value() const {
  if (node_.IsNull()) return std::monostate{};
  if (!node_.IsScalar()) fail("expected a single value, got " + describe());
  switch (kind_of(node_)) {
    case ScalarKind::kNull:
      return std::monostate{};
    case ScalarKind::kBool:
      return as_bool();
    case ScalarKind::kInt:
      return as_int();
    case ScalarKind::kFloat:
      return as_double();
    case ScalarKind::kString:
      break;
  }
  return node_.Scalar();
}

std::vector<YamlNode> YamlNode::as_list() const {
  if (!node_.IsSequence()) fail("expected a list, got " + describe());
  std::vector<YamlNode> items;
  for (size_t i = 0; i < node_.size(); ++i) {
    items.emplace_back(node_[i], file_, key_path_ + "[" + std::to_string(i) + "]");
  }
  return items;
}

std::vector<std::pair<std::string, YamlNode>> YamlNode::as_map() const {
  if (!node_.IsMap()) fail("expected a mapping, got " + describe());
  std::vector<std::pair<std::string, YamlNode>> entries;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const YamlNode key(it->first, file_, key_path_);
    if (!it->first.IsScalar()) fail("expected a name as key, got " + key.describe());
    const std::string name = it->first.Scalar();
    for (const auto& [seen, seen_node] : entries) {
      if (seen == name) {
        YamlNode(it->first, file_, child(it->second, name).key_path())
            .fail("given twice (first at line " + std::to_string(seen_node.line()) + ")");
      }
    }
    YamlNode value = child(it->second, name);
    // An empty value (`lr:`) is marked where the next token starts, often the
    // next line; the key's line is the one to show.
    if (value.is_null()) value.line_ = key.line();
    entries.emplace_back(name, value);
  }
  return entries;
}

nlohmann::json YamlNode::as_json() const {
  if (node_.IsSequence()) {
    nlohmann::json array = nlohmann::json::array();
    for (const YamlNode& item : as_list()) array.push_back(item.as_json());
    return array;
  }
  if (node_.IsMap()) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [key, value] : as_map()) object[key] = value.as_json();
    return object;
  }
  struct Visitor {
    nlohmann::json operator()(std::monostate) const { return nullptr; }
    nlohmann::json operator()(bool b) const { return b; }
    nlohmann::json operator()(int64_t i) const { return i; }
    nlohmann::json operator()(double d) const { return d; }
    nlohmann::json operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, as_value());
}

YamlNode YamlNode::child(YAML::Node node, const std::string& key) const {
  return YamlNode(std::move(node), file_, key_path_.empty() ? key : key_path_ + "." + key);
}

YamlMap::YamlMap(const YamlNode& node, const std::vector<std::string>& known)
    : node_(node), entries_(node.as_map()) {
  // Iterating the raw mapping again gives each key's own line.
  for (auto it = node_.node().begin(); it != node_.node().end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string hint = did_you_mean(key, known);
    YamlNode(it->first, node_.file(), node_.key_path())
        .fail("unknown key '" + key + "'" +
              (hint.empty() ? " (known keys: " + join_names(known) + ")" : hint));
  }
}

std::optional<YamlNode> YamlMap::find(const std::string& key) const {
  for (const auto& [name, value] : entries_) {
    if (name == key) return value;
  }
  return std::nullopt;
}

YamlNode YamlMap::require(const std::string& key) const {
  auto value = find(key);
  if (!value) node_.fail("missing required key '" + key + "'");
  return *value;
}

std::string read_text_file(const std::string& path, const std::string& what) {
  // A directory opens fine and then reads as empty; say what it is instead.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(path + ": cannot read " + what + ": it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read " + what + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

// The offset of the first byte that does not begin a well-formed UTF-8
// character, or npos. A NUL counts too: no text file holds one.
size_t first_non_utf8(const std::string& text) {
  for (size_t i = 0, skip = 0; i < text.size();) {
    const size_t n = utf8_char_at(text, i, skip);
    if (n == 0 || text[i] == '\0') return i;
    i += n;
  }
  return std::string::npos;
}

}  // namespace

YamlNode parse_yaml_mapping(const std::string& text, const std::string& file) {
  // yaml-cpp reads other bytes as Latin-1 text, or a UTF-16 file as CJK
  // characters: the error would quote what the user never wrote.
  if (const size_t bad = first_non_utf8(text); bad != std::string::npos) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n');
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[bad]));
    const bool utf16 = text.size() >= 2 && (static_cast<unsigned char>(text[0]) == 0xFF ||
                                            static_cast<unsigned char>(text[0]) == 0xFE);
    throw ConfigError(file + ":" + std::to_string(line) + ": not UTF-8 text (byte " + hex +
                      (utf16 ? ", a UTF-16 file" : "") + "); save the file as UTF-8");
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(file + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  if (root.IsNull()) throw ConfigError(file + ":1: the file is empty; expected a mapping");
  const YamlNode node(root, file, "");
  if (!node.is_map()) node.fail("expected a mapping at the top level, got " + node.describe());
  return node;
}

}  // namespace hpo
