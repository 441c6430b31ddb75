#include "hpo/run/space_change.h"

#include <doctest/doctest.h>

namespace hpo {
namespace {

TrialRecord trial_with(const std::string& name, Distribution d) {
  TrialRecord t;
  t.params.push_back({name, std::move(d), 0.0});
  return t;
}

SearchSpace space_of(const std::string& name, Distribution d) {
  ParamSpec spec;
  spec.name = name;
  spec.distribution = std::move(d);
  return {spec};
}

CategoricalDistribution categorical(std::vector<ParamValue> values) { return {std::move(values)}; }

TEST_CASE("a study's trials and today's space: what Optuna would refuse is named") {
  const std::vector<TrialRecord> stored = {
      trial_with("act", categorical({std::string("relu"), std::string("tanh")}))};
  // The same choices, or a parameter the stored trials never held: fine.
  CHECK(incompatible_space_change(
            stored, space_of("act", categorical({std::string("relu"), std::string("tanh")})))
            .empty());
  CHECK(incompatible_space_change(stored, space_of("lr", FloatDistribution{})).empty());
  // Other choices, the same in another order, another kind: refused, named.
  CHECK(incompatible_space_change(
            stored, space_of("act", categorical({std::string("relu"), std::string("gelu")}))) ==
        "'act': categorical [relu, tanh] in the stored trials, categorical [relu, gelu] now");
  CHECK_FALSE(incompatible_space_change(
                  stored, space_of("act", categorical({std::string("tanh"), std::string("relu")})))
                  .empty());
  CHECK(incompatible_space_change(stored, space_of("act", IntDistribution{0, 1, false, 1})) ==
        "'act': categorical [relu, tanh] in the stored trials, int now");
}

TEST_CASE("bounds and steps may move, log scale and kind may not") {
  const std::vector<TrialRecord> stored = {
      trial_with("lr", FloatDistribution{1e-5, 1e-1, true, std::nullopt}),
      trial_with("depth", IntDistribution{1, 4, false, 1})};
  CHECK(incompatible_space_change(stored,
                                  space_of("lr", FloatDistribution{1e-6, 1.0, true, std::nullopt}))
            .empty());
  CHECK(incompatible_space_change(stored, space_of("depth", IntDistribution{1, 8, false, 2}))
            .empty());
  CHECK(incompatible_space_change(
            stored, space_of("lr", FloatDistribution{1e-5, 1e-1, false, std::nullopt})) ==
        "'lr': float log in the stored trials, float now");
  CHECK(incompatible_space_change(
            stored, space_of("depth", FloatDistribution{1, 4, false, std::nullopt})) ==
        "'depth': int in the stored trials, float now");
}

}  // namespace
}  // namespace hpo
