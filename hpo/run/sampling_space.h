// The search space as the sampler sees it on this host: the study's declared
// space with the GPU profile's ceilings applied (hpo/gpu/space_bounds.h).
//
// Trials are always stored with the declared distributions: Optuna refuses
// a study whose parameter changes its distribution between trials, and a
// study shared by hosts with different GPUs would otherwise hold several.
// Only the sampler is bounded, so it never suggests what this GPU cannot
// run; values cross between the two spaces here.
#ifndef HPO_RUN_SAMPLING_SPACE_H_
#define HPO_RUN_SAMPLING_SPACE_H_

#include <optional>
#include <vector>

#include "hpo/storage/storage.h"
#include "samplers/search_space.h"
#include "samplers/trial_view.h"

namespace hpo {

class SamplingSpace {
 public:
  // `bounded` has the same parameters, in the same order, as `declared`,
  // each with a domain inside the declared one.
  SamplingSpace(SearchSpace declared, SearchSpace bounded);
  // No bounds: the sampler sees the declared space.
  explicit SamplingSpace(const SearchSpace& declared) : SamplingSpace(declared, declared) {}

  const SearchSpace& declared() const { return declared_; }
  const SearchSpace& bounded() const { return bounded_; }

  // A stored parameter's internal value as the sampler sees it; nullopt
  // when it lies outside the bounded domain (say, a batch size another
  // host's larger GPU ran), which the sampler then treats as missing.
  std::optional<double> to_sampler(const StoredParam& param) const;

  // A stored trial as the sampler sees it: params in the bounded space, and
  // out-of-memory failures marked infeasible, as is a trial whose sampled
  // point only ran after a retry outside the space (kRanOutsideSpaceAttr).
  TrialView view(const TrialRecord& trial) const;

  // The sampler's suggestion as params to store, in the declared space;
  // the parameters it left out (their condition failed) are not stored.
  std::vector<StoredParam> to_stored(const std::map<std::string, double>& suggestion) const;

 private:
  SearchSpace declared_;
  SearchSpace bounded_;
};

}  // namespace hpo

#endif  // HPO_RUN_SAMPLING_SPACE_H_
