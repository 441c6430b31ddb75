#include <doctest/doctest.h>

#include <string>

#include "hpo/config/config_error.h"
#include "hpo/config/search_space_file.h"
#include "hpo/gpu/space_fit.h"

namespace hpo {
namespace {

// search_spaces/stock_tcn.yaml's shape: CPU-sized batches.
const char kFitSpace[] = R"(params:
  batch_size:  {type: categorical, choices: [256, 512, 1024, 2048]}
  hidden_size: {type: categorical, choices: [32, 64, 128]}
  lr:          {type: float, low: 5.0e-6, high: 5.0e-3, log: true}
  model:       {type: fixed, value: tcn}
)";

GpuProfile gpu(std::vector<int64_t> batches, std::optional<int64_t> samples = 0) {
  GpuProfile p;
  p.name = "h200";
  p.vram_gb = 141;
  p.max_parallel_trials = 5;
  p.memory_per_model_gb = 16;
  p.batch_size_choices = std::move(batches);
  p.max_train_samples = samples;
  return p;
}

std::vector<ParamValue> choices(const SearchSpace& space, const std::string& name) {
  for (const ParamSpec& p : space) {
    if (p.name == name) return std::get<CategoricalDistribution>(p.distribution).choices;
  }
  return {};
}

const ParamValue* fixed(const SearchSpaceConfig& space, const std::string& name) {
  for (const auto& [key, value] : space.fixed) {
    if (key == name) return &value;
  }
  return nullptr;
}

const std::vector<ParamValue> kSpaceBatches = {int64_t{256}, int64_t{512}, int64_t{1024},
                                               int64_t{2048}};

TEST_CASE("a GPU profile's batch choices replace the space's, and its max_train_samples is fixed") {
  const FittedSpace fit =
      fit_search_space(parse_search_space(kFitSpace, "s.yaml"), gpu({4096, 8192}));
  const std::vector<ParamValue> profile = {int64_t{4096}, int64_t{8192}};
  CHECK(choices(fit.declared.params, "batch_size") == profile);  // stored with these
  CHECK(choices(fit.sampled, "batch_size") == profile);  // and drawn from them
  CHECK(choices(fit.sampled, "hidden_size").size() == 3);  // the rest as declared
  REQUIRE(fixed(fit.declared, "max_train_samples"));
  CHECK(*fixed(fit.declared, "max_train_samples") == ParamValue(int64_t{0}));
  CHECK(fit.from_profile == std::vector<std::string>{"batch_size", "max_train_samples"});
  CHECK(fit.notes ==
        std::vector<std::string>{"batch_size: choices [4096, 8192] from profile h200",
                                 "max_train_samples: 0 (every sample) from profile h200"});
}

TEST_CASE("pinned: true keeps the space's own batch choices, within the profile's ceiling") {
  std::string pinned = kFitSpace;
  pinned.replace(pinned.find("2048]}"), 6, "2048], pinned: true}");
  FittedSpace fit = fit_search_space(parse_search_space(pinned, "s.yaml"), gpu({4096, 8192}));
  CHECK(choices(fit.declared.params, "batch_size") == kSpaceBatches);
  CHECK(choices(fit.sampled, "batch_size") == kSpaceBatches);
  CHECK(fit.from_profile == std::vector<std::string>{"max_train_samples"});
  // The ceiling keeps a smaller GPU within its memory, pinned or not.
  fit = fit_search_space(parse_search_space(pinned, "s.yaml"), gpu({512, 768}));
  CHECK(choices(fit.declared.params, "batch_size") == kSpaceBatches);
  CHECK(choices(fit.sampled, "batch_size") == std::vector<ParamValue>{int64_t{256}, int64_t{512}});
}

TEST_CASE("the study's own max_train_samples, and the cpu profile, leave the space as declared") {
  SearchSpaceConfig space = parse_search_space(kFitSpace, "s.yaml");
  space.fixed.emplace_back("max_train_samples", int64_t{8192});
  const FittedSpace fit = fit_search_space(space, gpu({4096}));
  CHECK(*fixed(fit.declared, "max_train_samples") == ParamValue(int64_t{8192}));
  GpuProfile cpu;
  cpu.name = "cpu";
  cpu.cpu = true;
  cpu.batch_size_choices = {1024};  // a ceiling on the CPU, not a replacement
  const FittedSpace on_cpu = fit_search_space(parse_search_space(kFitSpace, "s.yaml"), cpu);
  CHECK(choices(on_cpu.declared.params, "batch_size") == kSpaceBatches);
  CHECK(choices(on_cpu.sampled, "batch_size").size() == 3);
  CHECK_FALSE(fixed(on_cpu.declared, "max_train_samples"));
  CHECK(on_cpu.from_profile.empty());
  // A profile without max_train_samples leaves the trainer's default.
  CHECK_FALSE(
      fixed(fit_search_space(parse_search_space(kFitSpace, "s.yaml"), gpu({4096}, {})).declared,
            "max_train_samples"));
}

TEST_CASE("a max_train_samples the space samples is not fixed over by the profile") {
  // The trials got the sampled value while the space view showed the
  // profile's 0 over it.
  std::string sampled = kFitSpace;
  sampled += "  max_train_samples: {type: categorical, choices: [1000, 4000]}\n";
  const FittedSpace fit = fit_search_space(parse_search_space(sampled, "s.yaml"), gpu({4096}));
  CHECK_FALSE(fixed(fit.declared, "max_train_samples"));
  CHECK(choices(fit.sampled, "max_train_samples").size() == 2);
  CHECK(fit.from_profile == std::vector<std::string>{"batch_size"});
}

TEST_CASE("an int batch_size range becomes the profile's choices too") {
  const FittedSpace fit = fit_search_space(
      parse_search_space("params:\n  batch_size: {type: int, low: 64, high: 512}\n", "s.yaml"),
      gpu({2048, 4096}));
  CHECK(choices(fit.declared.params, "batch_size") ==
        std::vector<ParamValue>{int64_t{2048}, int64_t{4096}});
}

}  // namespace
}  // namespace hpo
