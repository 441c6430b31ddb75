// NSGA-II (Deb et al. 2002) with Optuna's defaults: a population of 50,
// uniform crossover, random mutation, constrained domination, and elitist
// survival by non-domination rank and crowding distance.
//
// Generations are a function of the trial number alone: trial n belongs to
// generation n / population_size, so workers that ask at once, and trials
// that finish out of order, never make two workers disagree about which
// generation a trial is in. Generation g's parents are the survivors of
// generation g - 1's parents together with the trials of generation g - 1
// that are COMPLETE when asked; trials still running simply do not compete.
// Generation 0 is random (the random sampler's draws).
#ifndef HPO_SAMPLERS_NSGA2_SAMPLER_H_
#define HPO_SAMPLERS_NSGA2_SAMPLER_H_

#include <random>
#include <vector>

#include "samplers/nsga2_options.h"
#include "samplers/sampler.h"

namespace hpo {

class Nsga2Sampler : public Sampler {
 public:
  Nsga2Sampler(uint64_t seed, std::vector<Direction> directions, Nsga2Options options = {});

  std::string name() const override { return "nsga2"; }
  ParamValues ask(const SearchSpace& space, int number) override;
  void tell(const TrialView& trial) override;

  // One survivor: a trial number, its rank among the survivors' candidates
  // and its crowding distance within that rank.
  struct Member {
    int number;
    int rank;
    double crowding;
  };
  // Generation g's parents (empty for generation 0).
  const std::vector<Member>& parents(int generation);

 private:
  // The index of the better of two random parents (crowded comparison),
  // never `skip`.
  size_t tournament(const std::vector<Member>& parents, std::mt19937_64& rng, size_t skip) const;

  std::vector<Direction> directions_;
  Nsga2Options options_;
  // parents_[g] for g < parents_.size() are up to date: a trial that
  // completes in generation h makes every later generation's stale.
  std::vector<std::vector<Member>> parents_;
};

// NSGA-II's survival: of `candidates` (trial numbers, each with its losses
// and constraints), the best `size` by rank, the last front cut by crowding
// distance (larger first, ties by trial number).
std::vector<Nsga2Sampler::Member> nsga2_survivors(
    const std::vector<int>& candidates, const std::vector<std::vector<double>>& losses,
    const std::vector<std::vector<double>>& constraints, size_t size);

}  // namespace hpo

#endif  // HPO_SAMPLERS_NSGA2_SAMPLER_H_
