// Builds the pruner a study asks for, checking its options. The one place
// that knows the pruner names and their options.
#ifndef HPO_RUN_PRUNER_FACTORY_H_
#define HPO_RUN_PRUNER_FACTORY_H_

#include <memory>
#include <string>

#include "hpo/config/study_config.h"
#include "pruners/pruner.h"

namespace hpo {

// Throws ConfigError naming the study file, `pruner.KEY` and what was
// expected, for unknown options (with a suggestion) and wrong values.
std::unique_ptr<Pruner> make_pruner(const PrunerConfig& config, const std::string& study_file);

}  // namespace hpo

#endif  // HPO_RUN_PRUNER_FACTORY_H_
