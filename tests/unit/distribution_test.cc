#include "samplers/distribution.h"

#include <doctest/doctest.h>

#include <stdexcept>

namespace hpo {
namespace {

TEST_CASE("internal representation round-trips for each distribution kind") {
  const Distribution f = FloatDistribution{0.0, 1.0, false, 0.25};
  CHECK(to_internal(f, 0.75) == 0.75);
  CHECK(std::get<double>(to_external(f, 0.75)) == 0.75);
  CHECK_THROWS_AS(to_internal(f, 0.3), std::invalid_argument);  // off the grid
  CHECK_THROWS_AS(to_internal(f, 1.5), std::invalid_argument);

  const Distribution i = IntDistribution{1, 10, false, 3};
  CHECK(contains(i, 7));
  CHECK_FALSE(contains(i, 8));
  CHECK(std::get<int64_t>(to_external(i, 7.0)) == 7);

  const Distribution c =
      CategoricalDistribution{{std::string("a"), true, std::monostate{}, int64_t{64}}};
  CHECK(to_internal(c, std::string("a")) == 0);
  CHECK(to_internal(c, true) == 1);
  CHECK(to_internal(c, std::monostate{}) == 2);
  CHECK(to_internal(c, 64.0) == 3);  // 64 and 64.0 are one choice
  CHECK(std::get<int64_t>(to_external(c, 3)) == 64);
  CHECK_THROWS_AS(to_internal(c, std::string("b")), std::invalid_argument);
  CHECK_THROWS_AS(to_external(c, 4), std::out_of_range);
}

TEST_CASE("ordered numeric categoricals are recognised") {
  CHECK(is_ordered_numeric(CategoricalDistribution{{int64_t{1}, 2.5}}));
  CHECK_FALSE(is_ordered_numeric(CategoricalDistribution{{int64_t{1}, std::string("x")}}));
  CHECK_FALSE(is_ordered_numeric(CategoricalDistribution{}));
}

}  // namespace
}  // namespace hpo
