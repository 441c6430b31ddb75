#include "hpo/run/sampling_space.h"

#include <doctest/doctest.h>

#include "hpo/gpu/space_bounds.h"
#include "hpo/run/trial_config.h"
#include "samplers/random_sampler.h"

namespace hpo {

namespace {

const CategoricalDistribution kBatches{{int64_t{256}, int64_t{512}, int64_t{1024}, int64_t{2048}}};
const CategoricalDistribution kSmallBatches{{int64_t{256}, int64_t{512}}};
const IntDistribution kHidden{16, 512, false, 16};
const IntDistribution kSmallHidden{16, 128, false, 16};

TrialRecord complete_trial(std::vector<StoredParam> params, double value) {
  TrialRecord t;
  t.number = 3;
  t.state = TrialState::kComplete;
  t.params = std::move(params);
  t.value = value;
  return t;
}

SamplingSpace bounded_space() {
  return SamplingSpace({{"batch_size", kBatches}, {"hidden_size", kHidden}},
                       {{"batch_size", kSmallBatches}, {"hidden_size", kSmallHidden}});
}

}  // namespace

TEST_CASE("sampling space: stored values reach the sampler by value, not by index") {
  const SamplingSpace space(
      {{"b", CategoricalDistribution{{int64_t{2048}, int64_t{256}, int64_t{1024}}}}},
      {{"b", CategoricalDistribution{{int64_t{256}}}}});
  // 256 is index 1 declared, index 0 bounded.
  CHECK(space.to_sampler({"b", space.declared()[0].distribution, 1.0}) == 0.0);
  // 2048 and 1024 are beyond this host's ceiling: missing for its sampler.
  CHECK_FALSE(space.to_sampler({"b", space.declared()[0].distribution, 0.0}).has_value());
  CHECK_FALSE(space.to_sampler({"b", space.declared()[0].distribution, 2.0}).has_value());
  // And back: the sampler's index 0 is stored as the declared index of 256.
  const auto stored = space.to_stored({{"b", 0.0}});
  REQUIRE(stored.size() == 1);
  CHECK(stored[0].internal == 1.0);
  CHECK(stored[0].distribution == space.declared()[0].distribution);
}

TEST_CASE("sampling space: numbers keep their value; those above the bound are missing") {
  const SamplingSpace space = bounded_space();
  CHECK(space.to_sampler({"hidden_size", kHidden, 64.0}) == 64.0);
  CHECK_FALSE(space.to_sampler({"hidden_size", kHidden, 256.0}).has_value());
  const TrialView v = space.view(
      complete_trial({{"batch_size", kBatches, 3.0}, {"hidden_size", kHidden, 32.0}}, 0.5));
  CHECK(v.params.count("batch_size") == 0);  // 2048: another host's
  CHECK(v.params.at("hidden_size") == 32.0);
  CHECK(v.state == TrialState::kComplete);
  CHECK(v.value == 0.5);
}

TEST_CASE(
    "sampling space: every suggestion of a bounded sampler is stored in the declared space under "
    "the bound") {
  SearchSpace bounded = {{"batch_size", kBatches}, {"hidden_size", kHidden}};
  GpuProfile profile;
  profile.name = "small";
  profile.batch_size_choices = {256, 512};
  profile.hidden_size_max = 128;
  bound_search_space(bounded, profile);
  const SamplingSpace space({{"batch_size", kBatches}, {"hidden_size", kHidden}}, bounded);
  RandomSampler sampler(7, Direction::kMaximize);
  for (int n = 0; n < 200; ++n) {
    for (const StoredParam& p : space.to_stored(sampler.ask(space.bounded(), n))) {
      CHECK(p.distribution == space.declared()[p.name == "batch_size" ? 0 : 1].distribution);
      CHECK(as_double(to_external(p.distribution, p.internal)) <=
            (p.name == "batch_size" ? 512 : 128));
    }
  }
}

TEST_CASE("sampling space: a trial that only ran outside the space is a failure that did not fit") {
  const SamplingSpace space({{"batch_size", kBatches}});
  TrialRecord t = complete_trial({{"batch_size", kBatches, 0.0}}, 0.9);
  t.system_attrs[kRanOutsideSpaceAttr] = nlohmann::json::array({"batch_size"});
  const TrialView v = space.view(t);
  CHECK(v.state == TrialState::kFail);
  CHECK(v.infeasible);
  CHECK_FALSE(v.value.has_value());
  CHECK(v.params.at("batch_size") == 0.0);  // the sampled point
}

TEST_CASE(
    "params that ran: a retry inside the space replaces the sampled values, one outside replaces "
    "none") {
  const CategoricalDistribution accum{{int64_t{1}, int64_t{2}, int64_t{4}}};
  const std::vector<StoredParam> stored = {{"batch_size", kBatches, 2.0},  // 1024
                                           {"grad_accum", accum, 0.0},  // 1
                                           {"lr", FloatDistribution{1e-5, 1e-1, true, {}}, 1e-3}};
  nlohmann::ordered_json config = {
      {"batch_size", 512}, {"grad_accum", 2}, {"lr", 1e-3}, {"epochs", 5}};
  RanParams ran = params_that_ran(stored, config);
  CHECK(ran.outside.empty());
  REQUIRE(ran.inside.size() == 2);
  CHECK(ran.inside[0].name == "batch_size");
  CHECK(ran.inside[0].internal == 1.0);  // 512
  CHECK(ran.inside[1].name == "grad_accum");
  CHECK(ran.inside[1].internal == 1.0);  // 2

  config["batch_size"] = 128;  // not a choice
  config["grad_accum"] = 8;  // nor this
  ran = params_that_ran(stored, config);
  CHECK(ran.inside.empty());
  CHECK(ran.outside == std::vector<std::string>{"batch_size", "grad_accum"});

  // Nothing changed: nothing to replace.
  ran = params_that_ran(stored, trial_config(stored, {}));
  CHECK(ran.inside.empty());
  CHECK(ran.outside.empty());
}

}  // namespace hpo
