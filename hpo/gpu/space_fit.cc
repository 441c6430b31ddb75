#include "hpo/gpu/space_fit.h"

#include <algorithm>

#include "hpo/config/did_you_mean.h"
#include "hpo/gpu/space_bounds.h"

namespace hpo {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string choices_text(const std::vector<int64_t>& choices) {
  std::vector<std::string> texts;
  for (int64_t c : choices) texts.push_back(std::to_string(c));
  return "[" + join_names(texts) + "]";
}

// The profile's batch sizes are the ones its GPU is busy with; the space's
// are CPU-sized. A GPU profile only: the CPU keeps the space's.
void replace_batch_choices(FittedSpace& fit, const GpuProfile& profile) {
  if (profile.cpu || profile.batch_size_choices.empty()) return;
  for (ParamSpec& param : fit.declared.params) {
    if (param.name != "batch_size") continue;
    if (contains(fit.declared.pinned, param.name)) {
      fit.notes.push_back("batch_size: the space's choices kept (pinned: true), not profile " +
                          profile.name + "'s " + choices_text(profile.batch_size_choices));
      return;
    }
    CategoricalDistribution choices;
    for (int64_t c : profile.batch_size_choices) choices.choices.emplace_back(c);
    param.distribution = choices;
    fit.from_profile.push_back(param.name);
    fit.notes.push_back("batch_size: choices " + choices_text(profile.batch_size_choices) +
                        " from profile " + profile.name);
  }
}

void fix_train_samples(FittedSpace& fit, const GpuProfile& profile) {
  if (!profile.max_train_samples) return;
  FixedValues& fixed = fit.declared.fixed;
  const auto set = std::find_if(fixed.begin(), fixed.end(), [](const auto& entry) {
    return entry.first == "max_train_samples";
  });
  if (set != fixed.end()) return;  // the study's own choice
  for (const ParamSpec& param : fit.declared.params)
    if (param.name == "max_train_samples") return;  // sampled: also the study's
  fixed.emplace_back("max_train_samples", *profile.max_train_samples);
  fit.from_profile.push_back("max_train_samples");
  fit.notes.push_back("max_train_samples: " + std::to_string(*profile.max_train_samples) +
                      (*profile.max_train_samples == 0 ? " (every sample)" : "") +
                      " from profile " + profile.name);
}

}  // namespace

FittedSpace fit_search_space(const SearchSpaceConfig& space, const GpuProfile& profile) {
  FittedSpace fit;
  fit.declared = space;
  replace_batch_choices(fit, profile);
  fix_train_samples(fit, profile);
  fit.sampled = fit.declared.params;
  for (std::string& note : bound_search_space(fit.sampled, profile))
    fit.notes.push_back(std::move(note));
  return fit;
}

}  // namespace hpo
