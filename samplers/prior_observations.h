// Warm start: how the models read prior observations, the COMPLETE trials
// of earlier studies (an earlier stage of a staged sweep: fewer epochs, a
// smaller budget) told with Sampler::tell_prior.
//
// The fidelity rule. An earlier stage measures a related function at
// another fidelity: its values sit at another level and spread (a 5-epoch
// RankIC is lower and noisier than a 20-epoch one), and where it is good
// is often, not always, where the later stage is good. So:
//   1. each source's values, and this study's own, are standardized on
//      their own (mean 0, standard deviation 1, per source): levels and
//      spreads never carry over, only where each stage ranks its points;
//   2. how far that ranking carries over is learned from this study's own
//      trials, so that a misleading earlier stage is down-weighted by the
//      data itself. The GP models the source as one more kernel dimension
//      whose lengthscale, the cross-stage correlation, is fitted by maximum
//      a posteriori with the others (gp_sources.h); TPE weighs each
//      source's trials by how well its ranking agrees with this study's
//      (prior_tpe_weights below) and drops a source that disagrees;
//   3. the GP seeks improvement over this study's best (an earlier stage's
//      best is on another scale);
//   4. a warm-started study's startup is one trial (kWarmStartup), not the
//      sampler's n_startup_trials: the earlier stage already spread its
//      points over the space, but one point of this study's own, placed
//      without the earlier stage's say, first tells the models how the two
//      relate; without it the first trials gather where the earlier stage
//      was best, and a biased stage keeps them there (tools/bench/warm_start
//      measured it, docs/benchmarks.md).
// Prior observations are never counted as this study's trials.
#ifndef HPO_SAMPLERS_PRIOR_OBSERVATIONS_H_
#define HPO_SAMPLERS_PRIOR_OBSERVATIONS_H_

#include <map>
#include <vector>

#include "samplers/search_space.h"
#include "samplers/trial_view.h"

namespace hpo {

// The startup trials of a warm-started study (rule 4 above).
inline constexpr int kWarmStartup = 1;

// The startup point (sobol_startup.h) of a warm-started study's trial
// `number`: the sequence continued past as many points as the earlier
// stages hold. A staged sweep's stages share a seed, so the earlier stage's
// own startup drew points 0, 1, ...; the later stage drawing point 0 again
// would measure a configuration it already knows (at lower fidelity)
// instead of one it does not.
inline int warm_startup_point(int number, size_t n_prior) {
  return number + static_cast<int>(n_prior);
}

// The weight of a prior observation in TPE's Parzen estimators, against 1
// for one of this study's trials, while the earlier stage is trusted.
inline constexpr double kPriorTpeWeight = 0.5;
// How many of this study's trials the initial trust in an earlier stage
// is worth (a pseudo-count; see prior_tpe_weights).
inline constexpr double kAgreementPseudoCount = 3.0;

// `history` with `prior` merged in, prior trials numbered -1, -2, ...
// (below every trial of this study), and every COMPLETE value standardized
// within its source as the fidelity rule above says. Other states keep
// their values (TPE and the GP rank PRUNED and FAIL trials by state).
std::map<int, TrialView> with_prior(const std::map<int, TrialView>& history,
                                    const std::vector<TrialView>& prior);

// TPE's weight of each prior observation, in the order of `prior`:
// kPriorTpeWeight times the agreement of its source with this study. Each
// of this study's COMPLETE trials (n of them, from 3 on) is paired with the
// source's nearest observation (in the GP's encoded space, gp_space.h);
// rho, the rank correlation of the pairs' values, is shrunk towards 1 (full
// trust) with kAgreementPseudoCount c: r = (c + n rho) / (c + n); the
// agreement is max(0, r)^2, the share of one stage's ranking the other
// explains, as information from a source correlated by r scales with r^2.
// So a source trusted at first loses its weight as this study's own trials
// rank points otherwise, whatever the two stages' levels and scales.
std::vector<double> prior_tpe_weights(const std::map<int, TrialView>& history,
                                      const std::vector<TrialView>& prior,
                                      const SearchSpace& space);

// The prior observations TPE reads and their weights (prior_tpe_weights),
// in the same order. A source whose weight fell to 0 is left out: its
// trials would still take places among the good ones of TPE's split, and
// push this study's good trials out.
struct WeightedPrior {
  std::vector<TrialView> trials;
  std::vector<double> weights;
};
WeightedPrior tpe_prior(const std::map<int, TrialView>& history,
                        const std::vector<TrialView>& prior, const SearchSpace& space);

}  // namespace hpo

#endif  // HPO_SAMPLERS_PRIOR_OBSERVATIONS_H_
