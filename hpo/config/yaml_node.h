// A YAML node that remembers where it came from (file, line, key path), so
// that every typed read can fail with a message a user can act on:
//
//   search_spaces/x.yaml:7: params.lr.low: expected a number, got 'abc'
//
// Scalars are typed by the YAML 1.2 core schema, not by yaml-cpp's lenient
// conversions: `64` is an integer, `64.0` and `1e-3` are floats, `true` is a
// bool, `~` is null and anything quoted is a string.
#ifndef HPO_CONFIG_YAML_NODE_H_
#define HPO_CONFIG_YAML_NODE_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "samplers/param_value.h"

namespace hpo {

class YamlNode {
 public:
  YamlNode(YAML::Node node, std::string file, std::string key_path);

  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }
  const std::string& key_path() const { return key_path_; }
  int line() const { return line_; }  // 1-based; 0 when yaml-cpp does not know it

  // Throws ConfigError("file:line: key.path: what").
  [[noreturn]] void fail(const std::string& what) const;

  // How the node reads in a message: 'abc', a list, a mapping, nothing.
  std::string describe() const;

  bool is_null() const { return node_.IsNull(); }
  bool is_map() const { return node_.IsMap(); }

  // Typed reads. Each fails with "expected ..., got <describe()>".
  std::string as_string() const;  // a string or number scalar, as written
  double as_double() const;  // an integer or float; may be nan or inf
  int64_t as_int() const;  // an integer that fits in int64
  bool as_bool() const;  // true or false
  ParamValue as_value() const;  // any scalar, null included
  std::vector<YamlNode> as_list() const;  // elements keyed "path[i]"

  // The entries of a mapping in file order. yaml-cpp keeps duplicate keys
  // and lookups silently see only one of them, so a key given twice is an
  // error here. Non-string keys (lists, null) are errors too.
  std::vector<std::pair<std::string, YamlNode>> as_map() const;

  // The node as JSON, scalars typed as in as_value().
  nlohmann::json as_json() const;

  // Where a child lives: "params" + "lr" -> "params.lr".
  YamlNode child(YAML::Node node, const std::string& key) const;

 private:
  YAML::Node node_;
  std::string file_;
  std::string key_path_;
  int line_;
};

// A mapping whose keys must all be among `known`; an unknown key fails with
// the closest known key suggested.
class YamlMap {
 public:
  YamlMap(const YamlNode& node, const std::vector<std::string>& known);

  const YamlNode& node() const { return node_; }
  std::optional<YamlNode> find(const std::string& key) const;
  YamlNode require(const std::string& key) const;  // fails naming the mapping's line

 private:
  YamlNode node_;
  std::vector<std::pair<std::string, YamlNode>> entries_;
};

// The whole text of a file; fails with a ConfigError naming `what` ("study
// file") and the path when it cannot be read.
std::string read_text_file(const std::string& path, const std::string& what);

// The top-level mapping of a YAML document. Syntax errors, an empty document
// and a document that is not a mapping are ConfigErrors naming `file`.
YamlNode parse_yaml_mapping(const std::string& text, const std::string& file);

}  // namespace hpo

#endif  // HPO_CONFIG_YAML_NODE_H_
