#include "hpo/report/html/pareto_data.h"

#include <doctest/doctest.h>

#include <limits>

#include "two_objective_study.h"

namespace hpo {
namespace {

TEST_CASE(
    "pareto_json: an infinite value is counted as not drawn, and the volume goes on without it") {
  const double inf = std::numeric_limits<double>::infinity();
  // Trial 2 (a = inf, b = 0.8) is on the front, and dominates 0, 1 and 4;
  // trial 3 (0.2, 0.1) is on it too.
  const StudyView view =
      two_objective_study({{1.0, 1.0}, {0.5, 2.0}, {inf, 0.8}, {0.2, 0.1}, {inf, 5.0}});
  const nlohmann::json d = pareto_json(view, 200);
  std::vector<int> drawn;
  for (const auto& p : d["points"]) drawn.push_back(p["n"].get<int>());
  CHECK(drawn == std::vector<int>{0, 1, 3});
  CHECK(d["not_drawn"]["trials"] == 2);
  CHECK(d["not_drawn"]["front"] == 1);  // trial 2; trial 4 is dominated by it
  CHECK(d["front_size"] == 2);  // 2 and 3, as hpo best lists them
  // Every point of the volume's history is a number: the finite trials'.
  const auto& hv = d["hypervolume"];
  CHECK(hv["n"] == nlohmann::json({0, 1, 3}));
  for (const auto& v : hv["hv"]) {
    REQUIRE(v.is_number());
    CHECK(std::isfinite(v.get<double>()));
  }
  const StudyView finite = two_objective_study({{1.0, 1.0}, {0.5, 2.0}, {0.2, 0.1}});
  CHECK(pareto_json(finite, 200)["hypervolume"]["hv"] == hv["hv"]);
  CHECK(pareto_json(finite, 200)["not_drawn"]["trials"] == 0);
}

}  // namespace
}  // namespace hpo
