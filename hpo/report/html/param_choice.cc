#include "hpo/report/html/param_choice.h"

#include <algorithm>
#include <set>

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"

namespace hpo {

namespace {

// `wanted` in the study's order, so the axes keep one order on every page.
std::vector<std::string> in_study_order(const std::vector<std::string>& study_params,
                                        const std::set<std::string>& wanted) {
  std::vector<std::string> names;
  for (const auto& name : study_params) {
    if (wanted.count(name)) names.push_back(name);
  }
  return names;
}

void check_requested(const std::vector<std::string>& study_params,
                     const std::vector<std::string>& requested) {
  for (const auto& name : requested) {
    if (std::find(study_params.begin(), study_params.end(), name) == study_params.end())
      throw ConfigError("--params: the study has no parameter '" + name + "'" +
                        did_you_mean(name, study_params) +
                        "; its parameters: " + join_names(study_params));
  }
}

}  // namespace

nlohmann::json choose_params(const std::vector<std::string>& study_params,
                             const nlohmann::json& importance,
                             const std::vector<std::string>& requested, size_t limit) {
  if (!requested.empty()) {
    check_requested(study_params, requested);
    return {{"names", in_study_order(study_params, {requested.begin(), requested.end()})},
            {"by", "--params"}};
  }
  if (study_params.size() <= limit) return {{"names", study_params}, {"by", "all"}};
  std::set<std::string> top;
  if (importance.contains("params")) {
    for (const auto& p : importance["params"]) {
      if (top.size() < limit) top.insert(p["name"].get<std::string>());
    }
  }
  if (!top.empty()) return {{"names", in_study_order(study_params, top)}, {"by", "importance"}};
  return {{"names", std::vector<std::string>(study_params.begin(), study_params.begin() + limit)},
          {"by", "order"}};
}

}  // namespace hpo
