#include "hpo/report/trial_json.h"

#include <doctest/doctest.h>

#include <limits>

namespace hpo {
namespace {

TEST_CASE("a trial's NaN and infinite values are named apart in JSON") {
  TrialRecord t;
  t.state = TrialState::kPruned;
  t.intermediate = {{0, std::numeric_limits<double>::quiet_NaN()},
                    {1, std::numeric_limits<double>::infinity()},
                    {2, -std::numeric_limits<double>::infinity()},
                    {3, 0.25}};
  const auto j = trial_json(t);
  CHECK(j["intermediate"]["0"] == "nan");  // was "-inf": a NaN is neither
  CHECK(j["intermediate"]["1"] == "inf");
  CHECK(j["intermediate"]["2"] == "-inf");
  CHECK(j["intermediate"]["3"] == 0.25);
  CHECK(j["value"].is_null());
}

}  // namespace
}  // namespace hpo
