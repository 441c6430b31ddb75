#include "pruners/pruner.h"

namespace hpo {

std::optional<int> PrunerTrial::last_step() const {
  if (intermediate.empty()) return std::nullopt;
  return intermediate.rbegin()->first;
}

const std::vector<std::string>& pruner_names() {
  static const std::vector<std::string> names = {"none", "median", "percentile",
                                                 "successive_halving", "hyperband"};
  return names;
}

std::string completed_rung_key(int rung) { return "completed_rung_" + std::to_string(rung); }

}  // namespace hpo
