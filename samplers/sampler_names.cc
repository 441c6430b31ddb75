#include "samplers/sampler_names.h"

namespace hpo {

const std::vector<std::string>& sampler_names() {
  static const std::vector<std::string> names = {"auto", "random", "tpe", "gp"};
  return names;
}

const std::vector<std::string>& multi_objective_sampler_names() {
  static const std::vector<std::string> names = {"auto", "nsga2", "random", "tpe"};
  return names;
}

}  // namespace hpo
