#include "hpo/gpu/space_bounds.h"

#include <cstdint>

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"

namespace hpo {

namespace {

std::string limit_text(const GpuProfile& profile, int64_t ceiling) {
  return "profile " + profile.name + " allows <= " + std::to_string(ceiling);
}

std::string bound_categorical(const std::string& name, CategoricalDistribution& dist,
                              int64_t ceiling, const GpuProfile& profile) {
  std::vector<ParamValue> kept;
  std::vector<std::string> dropped;
  for (const ParamValue& choice : dist.choices) {
    if (is_numeric(choice) && as_double(choice) > static_cast<double>(ceiling)) {
      dropped.push_back(to_string(choice));
    } else {
      kept.push_back(choice);
    }
  }
  if (dropped.empty()) return "";
  if (kept.empty()) {
    throw ConfigError(name + ": every choice (" + join_names(dropped) +
                      ") is above the GPU limit: " + limit_text(profile, ceiling) +
                      "; add smaller choices or pick another profile");
  }
  dist.choices = std::move(kept);
  return name + ": dropped " + join_names(dropped) + " (" + limit_text(profile, ceiling) + ")";
}

std::string bound_int(const std::string& name, IntDistribution& dist, int64_t ceiling,
                      const GpuProfile& profile) {
  if (dist.high <= ceiling) return "";
  if (dist.low > ceiling) {
    throw ConfigError(name + ": low " + std::to_string(dist.low) +
                      " is above the GPU limit: " + limit_text(profile, ceiling));
  }
  const int64_t old_high = dist.high;
  dist.high = dist.low + (ceiling - dist.low) / dist.step * dist.step;  // stay on the grid
  return name + ": high " + std::to_string(old_high) + " -> " + std::to_string(dist.high) + " (" +
         limit_text(profile, ceiling) + ")";
}

std::string bound_float(const std::string& name, FloatDistribution& dist, int64_t ceiling,
                        const GpuProfile& profile) {
  const double limit = static_cast<double>(ceiling);
  if (dist.high <= limit) return "";
  if (dist.low >= limit || dist.step) {
    throw ConfigError(name + ": a float range above the GPU limit (" +
                      limit_text(profile, ceiling) + ") cannot be bounded; use smaller bounds");
  }
  const std::string note = name + ": high " + to_string(ParamValue(dist.high)) + " -> " +
                           std::to_string(ceiling) + " (" + limit_text(profile, ceiling) + ")";
  dist.high = limit;
  return note;
}

std::string bound_param(ParamSpec& param, int64_t ceiling, const GpuProfile& profile) {
  if (auto* c = std::get_if<CategoricalDistribution>(&param.distribution)) {
    return bound_categorical(param.name, *c, ceiling, profile);
  }
  if (auto* i = std::get_if<IntDistribution>(&param.distribution))
    return bound_int(param.name, *i, ceiling, profile);
  return bound_float(param.name, std::get<FloatDistribution>(param.distribution), ceiling, profile);
}

}  // namespace

std::vector<std::string> bound_search_space(SearchSpace& space, const GpuProfile& profile) {
  std::vector<std::string> notes;
  for (ParamSpec& param : space) {
    std::optional<int64_t> ceiling;
    if (param.name == "batch_size") ceiling = profile.batch_ceiling();
    if (param.name == "hidden_size") ceiling = profile.hidden_size_max;
    if (!ceiling) continue;
    std::string note = bound_param(param, *ceiling, profile);
    if (!note.empty()) notes.push_back(std::move(note));
  }
  return notes;
}

}  // namespace hpo
