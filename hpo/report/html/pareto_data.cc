#include "hpo/report/html/pareto_data.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "hpo/report/pareto_view.h"
#include "hpo/storage/trial_constraints.h"
#include "samplers/hypervolume.h"

namespace hpo {

namespace {

using json = nlohmann::json;

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

// The hypervolume of the feasible front over the trials up to each of a few
// steps (trial numbers), in number order.
json hypervolume_json(const StudyView& view, size_t max_steps) {
  const auto directions = objective_directions(view.study);
  std::vector<int> numbers;
  Losses losses;
  for (const auto& t : view.trials) {
    // An infinite value would make the volume infinite from that trial on:
    // left out, as from every chart (pareto_json says how many).
    if (!has_all_values(view, t) || !trial_feasible(t) || !all_finite(t.values)) continue;
    numbers.push_back(t.number);
    losses.push_back(to_losses(t.values, directions));
  }
  json out = {{"n", json::array()}, {"hv", json::array()}, {"reference", nullptr}};
  if (losses.empty()) return out;
  const std::vector<double> reference = nadir_reference(losses);
  std::vector<double> shown;  // the reference as the objectives read, not as losses
  for (size_t k = 0; k < reference.size(); ++k)
    shown.push_back(directions[k] == Direction::kMaximize ? -reference[k] : reference[k]);
  out["reference"] = shown;
  const size_t n = losses.size();
  const size_t steps = std::min(n, std::max<size_t>(max_steps, 1));
  std::set<size_t> at;  // prefix lengths, the whole set always among them
  for (size_t s = 1; s <= steps; ++s) at.insert((s * n + steps - 1) / steps);
  for (size_t end : at) {
    const Losses prefix(losses.begin(), losses.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<std::vector<double>> front;
    for (size_t i : pareto_front(prefix)) front.push_back(prefix[i]);
    out["n"].push_back(numbers[end - 1]);
    out["hv"].push_back(hypervolume(front, reference));
  }
  return out;
}

}  // namespace

json pareto_json(const StudyView& view, size_t max_steps) {
  if (!is_multi_objective(view.study)) return nullptr;
  json d;
  d["metrics"] = view.metrics;
  d["directions"] = json::array();
  for (Direction dir : view.study.directions)
    d["directions"].push_back(dir == Direction::kMaximize ? "maximize" : "minimize");
  const std::set<int> front = pareto_numbers(view);
  d["points"] = json::array();
  int infinite = 0, infinite_front = 0;
  for (const auto& t : view.trials) {
    if (!has_all_values(view, t)) continue;
    if (!all_finite(t.values)) {  // no place on a chart's axis
      ++infinite;
      infinite_front += front.count(t.number) > 0;
      continue;
    }
    d["points"].push_back({{"n", t.number},
                           {"values", t.values},
                           {"feasible", trial_feasible(t)},
                           {"front", front.count(t.number) > 0}});
  }
  // What the charts cannot show, so that the page can say so: the front is
  // `front_size` trials, as hpo best lists it, drawn or not.
  d["front_size"] = front.size();
  d["not_drawn"] = {{"trials", infinite}, {"front", infinite_front}};
  d["constrained"] = has_constraints(view.trials);
  d["hypervolume"] = hypervolume_json(view, max_steps);
  return d;
}

}  // namespace hpo
