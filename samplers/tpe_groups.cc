#include "samplers/tpe_groups.h"

#include <cstddef>

namespace hpo {

ParamGroups decompose_groups(int n_params, const Presence& present) {
  ParamGroups groups(1);
  for (int p = 0; p < n_params; ++p) groups[0].push_back(p);
  if (n_params == 0) return {};
  for (const auto& held : present) {
    // Split every group into the part this trial holds and the part it lacks.
    ParamGroups next;
    for (const auto& g : groups) {
      std::vector<int> in, out;
      for (int p : g) (held[static_cast<size_t>(p)] ? in : out).push_back(p);
      if (!in.empty()) next.push_back(std::move(in));
      if (!out.empty()) next.push_back(std::move(out));
    }
    groups = std::move(next);
  }
  return groups;
}

ParamGroups intersection_groups(int n_params, const Presence& present) {
  std::vector<int> common, rest;
  for (int p = 0; p < n_params; ++p) {
    bool everywhere = true;
    for (const auto& held : present) everywhere = everywhere && held[static_cast<size_t>(p)];
    (everywhere ? common : rest).push_back(p);
  }
  ParamGroups groups;
  if (!common.empty()) groups.push_back(common);
  for (int p : rest) groups.push_back({p});
  return groups;
}

}  // namespace hpo
