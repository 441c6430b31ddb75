#include "samplers/nsga2_sampler.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "samplers/conditions.h"
#include "samplers/pareto.h"
#include "samplers/random_sampler.h"
#include "samplers/uniform.h"

namespace hpo {

namespace {

// Crowded comparison: the lower rank, then the larger crowding distance.
bool better(const Nsga2Sampler::Member& a, const Nsga2Sampler::Member& b) {
  return a.rank < b.rank || (a.rank == b.rank && a.crowding > b.crowding);
}

}  // namespace

std::vector<Nsga2Sampler::Member> nsga2_survivors(
    const std::vector<int>& candidates, const std::vector<std::vector<double>>& losses,
    const std::vector<std::vector<double>>& constraints, size_t size) {
  const std::vector<int> rank = nondominated_ranks(losses, constraints, size);
  std::map<int, std::vector<size_t>> fronts;
  for (size_t i = 0; i < rank.size(); ++i) {
    if (rank[i] >= 0) fronts[rank[i]].push_back(i);
  }
  std::vector<Nsga2Sampler::Member> out;
  for (const auto& [r, front] : fronts) {
    Losses points;
    for (size_t i : front) points.push_back(losses[i]);
    const std::vector<double> crowding = crowding_distance(points);
    std::vector<Nsga2Sampler::Member> members;
    for (size_t k = 0; k < front.size(); ++k)
      members.push_back({candidates[front[k]], r, crowding[k]});
    if (out.size() + members.size() > size) {
      std::stable_sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
        return a.crowding > b.crowding || (a.crowding == b.crowding && a.number < b.number);
      });
      members.resize(size - out.size());
    }
    out.insert(out.end(), members.begin(), members.end());
    if (out.size() >= size) break;
  }
  return out;
}

Nsga2Sampler::Nsga2Sampler(uint64_t seed, std::vector<Direction> directions, Nsga2Options options)
    : Sampler(seed, directions.empty() ? Direction::kMinimize : directions.front()),
      directions_(std::move(directions)),
      options_(options) {}

void Nsga2Sampler::tell(const TrialView& trial) {
  Sampler::tell(trial);
  if (trial.state != TrialState::kComplete) return;
  // The trial now competes in the next generation's survival.
  const size_t generation = static_cast<size_t>(trial.number / options_.population_size);
  if (parents_.size() > generation + 1) parents_.resize(generation + 1);
}

const std::vector<Nsga2Sampler::Member>& Nsga2Sampler::parents(int generation) {
  const size_t pop = static_cast<size_t>(options_.population_size);
  if (parents_.empty()) parents_.emplace_back();  // generation 0: none
  while (parents_.size() <= static_cast<size_t>(generation)) {
    const int previous = static_cast<int>(parents_.size()) - 1;
    std::vector<int> candidates;
    Losses losses, constraints;
    auto add = [&](const TrialView& t) {
      const auto l = trial_losses(t, directions_);
      if (!l) return;
      candidates.push_back(t.number);
      losses.push_back(*l);
      constraints.push_back(t.constraints);
    };
    for (const Member& m : parents_.back()) add(history().at(m.number));
    const auto& all = history();
    for (auto it = all.lower_bound(previous * options_.population_size);
         it != all.end() && it->first < (previous + 1) * options_.population_size; ++it) {
      add(it->second);
    }
    parents_.push_back(nsga2_survivors(candidates, losses, constraints, pop));
  }
  return parents_[static_cast<size_t>(generation)];
}

size_t Nsga2Sampler::tournament(const std::vector<Member>& parents, std::mt19937_64& rng,
                                size_t skip) const {
  // Two draws among the parents other than `skip` (the first parent, so
  // that a child never crosses a parent with itself).
  const size_t n = parents.size() - (skip < parents.size() ? 1 : 0);
  const auto pick = [&] {
    const size_t i = uniform_index(rng, n);
    return i >= skip ? i + 1 : i;
  };
  const size_t a = pick(), b = pick();
  return better(parents[b], parents[a]) ? b : a;
}

ParamValues Nsga2Sampler::ask(const SearchSpace& space, int number) {
  const std::vector<Member>& parents = this->parents(number / options_.population_size);
  if (parents.empty()) {
    // Exactly the random sampler's draws.
    std::mt19937_64 rng(trial_seed(number));
    ParamValues values;
    for (const auto& p : space) values[p.name] = sample_uniform(p.distribution, rng);
    return drop_inactive(space, std::move(values));
  }
  std::mt19937_64 rng(trial_seed(number, 1));
  const size_t a = tournament(parents, rng, parents.size());
  const size_t b = parents.size() > 1 ? tournament(parents, rng, a) : a;
  const auto& first = history().at(parents[a].number).params;
  const auto& second = history().at(parents[b].number).params;
  const bool cross = uniform01(rng) < options_.crossover_prob;
  const double mutation = options_.mutation_prob >= 0
                              ? options_.mutation_prob
                              : 1.0 / static_cast<double>(std::max<size_t>(1, space.size()));
  ParamValues values;
  for (const auto& p : space) {
    // Every draw is made for every parameter, so a parameter's value does
    // not shift the stream of the ones after it.
    const bool swap = uniform01(rng) < options_.swapping_prob;
    const bool mutate = uniform01(rng) < mutation;
    const double fresh = sample_uniform(p.distribution, rng);
    const auto& parent = cross && swap ? second : first;
    const auto it = parent.find(p.name);
    const bool inherit = !mutate && it != parent.end() && contains(p.distribution, it->second);
    values[p.name] = inherit ? it->second : fresh;
  }
  return drop_inactive(space, std::move(values));
}

}  // namespace hpo
