#include <doctest/doctest.h>

#include "hpo/config/config_error.h"
#include "hpo/gpu/space_bounds.h"

namespace hpo {
namespace {

GpuProfile profile(int64_t batch_max) {
  GpuProfile p;
  p.name = "small";
  p.vram_gb = 24;
  p.batch_size_max = batch_max;
  return p;
}

CategoricalDistribution choices(std::vector<ParamValue> values) {
  return CategoricalDistribution{std::move(values)};
}

TEST_CASE("batch sizes above the profile's ceiling are dropped") {
  SearchSpace space = {
      {"batch_size", choices({int64_t{256}, int64_t{512}, int64_t{1024}, int64_t{2048}})},
      {"lr", FloatDistribution{1e-5, 1e-2, true, std::nullopt}}};
  const std::vector<std::string> notes = bound_search_space(space, profile(768));
  CHECK(std::get<CategoricalDistribution>(space[0].distribution).choices ==
        std::vector<ParamValue>{int64_t{256}, int64_t{512}});
  CHECK(notes ==
        std::vector<std::string>{"batch_size: dropped 1024, 2048 (profile small allows <= 768)"});
  CHECK(std::get<FloatDistribution>(space[1].distribution).high == 1e-2);  // other names untouched
}

TEST_CASE("a space within the ceiling, or a profile without one, is left alone") {
  SearchSpace space = {{"batch_size", choices({int64_t{256}, int64_t{512}})}};
  CHECK(bound_search_space(space, profile(512)).empty());
  GpuProfile none;
  none.name = "none";
  CHECK(bound_search_space(space, none).empty());
  CHECK(std::get<CategoricalDistribution>(space[0].distribution).choices.size() == 2);
}

TEST_CASE("no batch size left under the ceiling is an error") {
  SearchSpace space = {{"batch_size", choices({int64_t{4096}, int64_t{8192}})}};
  CHECK_THROWS_WITH_AS(
      bound_search_space(space, profile(768)),
      "batch_size: every choice (4096, 8192) is above the GPU limit: profile small allows <= 768; "
      "add smaller choices or pick another profile",
      ConfigError);
}

TEST_CASE(
    "an int range is cut at the ceiling, on its step grid; hidden_size_max bounds hidden_size") {
  GpuProfile p = profile(1000);
  p.hidden_size_max = 256;
  SearchSpace space = {{"batch_size", IntDistribution{64, 4096, false, 64}},
                       {"hidden_size", choices({int64_t{128}, int64_t{256}, int64_t{512}})}};
  const std::vector<std::string> notes = bound_search_space(space, p);
  CHECK(std::get<IntDistribution>(space[0].distribution).high == 960);
  CHECK(std::get<CategoricalDistribution>(space[1].distribution).choices.size() == 2);
  CHECK(notes.size() == 2);
  SearchSpace too_big = {{"batch_size", IntDistribution{2048, 4096, false, 1}}};
  CHECK_THROWS_AS(bound_search_space(too_big, p), ConfigError);
}

TEST_CASE("the ceiling defaults to the largest of the profile's batch choices") {
  GpuProfile p;
  p.name = "choices";
  p.batch_size_choices = {512, 768};
  SearchSpace space = {{"batch_size", choices({int64_t{512}, int64_t{1024}})}};
  bound_search_space(space, p);
  CHECK(std::get<CategoricalDistribution>(space[0].distribution).choices ==
        std::vector<ParamValue>{int64_t{512}});
}

}  // namespace
}  // namespace hpo
