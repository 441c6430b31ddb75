// Warm start: how the models read prior observations, the COMPLETE trials
// of earlier studies (an earlier stage of a staged sweep: fewer epochs, a
// smaller budget) told with Sampler::tell_prior.
//
// The fidelity rule. An earlier stage measures the same function at
// another fidelity: its values sit at another level and spread (a 5-epoch
// RankIC is lower and noisier than a 20-epoch one), but where it is good
// tends to be where the later stage is good. So each source's values, and
// this study's own, are standardized on their own (mean 0, standard
// deviation 1, per source): only where each stage ranks its points
// carries over, never its level. The GP sees every point on that common
// scale, and seeks improvement over this study's best (an earlier stage's
// best is on another scale); TPE splits them together and down-weights the
// prior ones in its density estimates (prior_tpe_weights below). A warm-started
// study has no random startup of its own: the earlier stage already spread
// its points over the space, so the model starts with the first trial.
// Prior observations are never counted as this study's trials.
#ifndef HPO_SAMPLERS_PRIOR_OBSERVATIONS_H_
#define HPO_SAMPLERS_PRIOR_OBSERVATIONS_H_

#include <map>
#include <vector>

#include "samplers/search_space.h"
#include "samplers/trial_view.h"

namespace hpo {

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
