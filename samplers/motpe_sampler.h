// Multi-objective TPE (Ozaki et al. 2020, as Optuna's TPESampler does it
// for several objectives): the good trials ("below") are the best
// non-domination ranks, whole fronts first, the last front cut to size by
// greedy hypervolume subset selection; each good trial weighs in l(x) by
// its share of their hypervolume. Everything else (the model, the
// candidates, the constant liar, the options) is TpeSampler's.
//
// The split does not rank the study at each ask, as Optuna does: the best
// fronts are kept as trials are told (ParetoLayers), and the good trials'
// selection and weights are reused while the fronts that hold them stay
// the same: no ask ranks the whole study. (The subset selection of the
// last good front still grows with that front, large with 3 objectives.)
#ifndef HPO_SAMPLERS_MOTPE_SAMPLER_H_
#define HPO_SAMPLERS_MOTPE_SAMPLER_H_

#include <set>
#include <utility>
#include <vector>

#include "samplers/pareto_layers.h"
#include "samplers/tpe_sampler.h"

namespace hpo {

// TPE's defaults with two changes, each measured on tools/bench/mo_quality
// (docs/benchmarks.md): g(x) weighs old trials down as Optuna's does (the
// l(x) weights are the hypervolume shares either way), and a space of 10 or
// more free parameters gets one model per parameter (per_parameter_from).
TpeOptions motpe_default_options();

class MotpeSampler : public TpeSampler {
 public:
  MotpeSampler(uint64_t seed, std::vector<Direction> directions,
               TpeOptions options = motpe_default_options());

  void tell(const TrialView& trial) override;

 protected:
  TpeSplit split() const override;

 private:
  std::vector<Direction> directions_;
  // By trial number, kept as trials are told so that a split reads flat
  // arrays instead of every trial's values: the losses (directions_.size()
  // each), whether the trial is COMPLETE with values, and its violation.
  std::vector<double> losses_;
  std::vector<char> complete_;
  std::vector<double> violation_;
  // The COMPLETE trials' best fronts (feasible ones) and, apart, the
  // infeasible ones by violation, then number: what the split picks from.
  ParetoLayers feasible_;
  std::set<std::pair<double, int>> infeasible_;
  // The last split's candidates (the trials of the fronts it read, by
  // number), and the good trials it chose from them with their weights.
  struct Good {
    std::vector<int> candidates;
    size_t cut = 0;
    std::vector<int> numbers;
    std::vector<double> weights;
  };
  void add(size_t at);
  void rebuild();
  std::vector<double> point(int number) const;
  const Good& good(size_t cut) const;
  mutable Good good_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_MOTPE_SAMPLER_H_
