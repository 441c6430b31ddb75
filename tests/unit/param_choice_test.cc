#include "hpo/report/html/param_choice.h"

#include <doctest/doctest.h>

#include "hpo/config/config_error.h"

namespace hpo {
namespace {

using nlohmann::json;

const std::vector<std::string> kParams = {"a", "b", "lr", "d", "e"};
const json kRanked = {{"params",
                       {{{"name", "e"}, {"importance", 0.5}},
                        {{"name", "a"}, {"importance", 0.3}},
                        {{"name", "lr"}, {"importance", 0.2}}}}};

TEST_CASE("choose_params: all when they fit, else the most important, in the study's order") {
  CHECK(choose_params(kParams, kRanked, {}, 5) == json({{"names", kParams}, {"by", "all"}}));
  CHECK(choose_params(kParams, kRanked, {}, 2) ==
        json({{"names", {"a", "e"}}, {"by", "importance"}}));
  // Nothing ranked (too few trials): the first ones.
  CHECK(choose_params(kParams, {{"why", "too few"}}, {}, 2) ==
        json({{"names", {"a", "b"}}, {"by", "order"}}));
}

TEST_CASE("choose_params: --params names them, in the study's order, and a wrong name is refused") {
  CHECK(choose_params(kParams, kRanked, {"d", "a"}, 1) ==
        json({{"names", {"a", "d"}}, {"by", "--params"}}));
  CHECK_THROWS_WITH_AS(choose_params(kParams, kRanked, {"a", "lrr"}, 10),
                       "--params: the study has no parameter 'lrr' (did you mean 'lr'?); its "
                       "parameters: a, b, lr, d, e",
                       ConfigError);
}

}  // namespace
}  // namespace hpo
