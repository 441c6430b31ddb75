// A search-space parameter's `condition:`, read and checked:
//
//   model:  {type: categorical, choices: [tcn, mlp]}
//   kernel: {type: int, low: 2, high: 7, condition: {model: tcn}}
//   hidden: {type: int, low: 8, high: 128, condition: {model: [mlp]}}
//
// The parent must be a categorical defined above the child (so conditions
// chain but never cycle, and samplers settle them in file order), and each
// value must be one of its choices: a condition that can never hold is an
// error, not a parameter that silently never appears.
#ifndef HPO_CONFIG_PARAM_CONDITION_H_
#define HPO_CONFIG_PARAM_CONDITION_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hpo/config/study_config.h"
#include "hpo/config/yaml_node.h"

namespace hpo {

// Every entry of a `params:` mapping, with the parent its condition names
// as written ("" without one; nothing checked): what the messages for a
// parent defined below its child need to tell a cycle from a misordering.
std::map<std::string, std::string> written_parents(
    const std::vector<std::pair<std::string, YamlNode>>& entries);

// The condition `node` of parameter `child`, checked against `space`, the
// parameters above it; `parents` is written_parents() of the whole file.
// Fails naming the file, the line and what was expected.
Condition parse_condition(const YamlNode& node, const std::string& child,
                          const SearchSpaceConfig& space,
                          const std::map<std::string, std::string>& parents);

// A study file's `fixed: {model: mlp}` on a space that samples `model`:
// picks that branch. `name` leaves the sampled parameters (the caller adds
// it to the fixed values); a child whose condition on it holds becomes
// unconditional, one whose condition fails leaves the space with its own
// children. False, changing nothing, unless `name` is an unconditional
// categorical with `value` among its choices.
bool fix_choice(SearchSpaceConfig& space, const std::string& name, const ParamValue& value);

}  // namespace hpo

#endif  // HPO_CONFIG_PARAM_CONDITION_H_
